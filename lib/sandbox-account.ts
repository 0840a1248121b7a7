/**
 * The sandbox's test account a newcomer is given: anvil's first development account (from Foundry's
 * published mnemonic "test test test test test test test test test test test junk"), which the
 * sandbox funds with every stablecoin on its local chains. Its key is public knowledge, printed by
 * `npm start` and offered by the Kassa extension only while its proxy runs on the sandbox: for the
 * sandbox's test money only, never for real money. Two exports, so that what shows the address
 * (the extension's pages) never bundles the key (its service worker does).
 */
export const SANDBOX_TEST_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const SANDBOX_TEST_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
