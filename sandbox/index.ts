/**
 * kassa/sandbox: the emulator inside a merchant's own test suite. `startSandbox()` starts the
 * upstream services on a loopback port and the local chains (one anvil each); `stop()` ends both.
 */
export { startSandbox } from './server.ts';
export type { ChainConfig, Sandbox, SandboxChain, SandboxOptions } from './server.ts';
