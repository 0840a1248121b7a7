/**
 * Scripts put into each panel's page before anything else runs: the same wallet for both panels,
 * and the same definition of "ready" for both, checked on every animation frame from the start.
 */

/**
 * A wallet announced the EIP-6963 way, as a wallet extension announces itself: it holds no key,
 * has no account connected yet, and refuses whatever would need the user. Both panels see it.
 */
export const ANNOUNCED_WALLET = `(() => {
  const provider = {
    request: async ({ method }) => {
      if (method === 'eth_accounts') return [];
      if (method === 'eth_chainId') return '0x7a69';
      if (method === 'net_version') return '31337';
      throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
    },
    on() {},
    removeListener() {},
  };
  const icon = 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#345"/></svg>');
  const detail = Object.freeze({
    info: Object.freeze({ uuid: '0b8d3c7e-3f0a-4d8e-9a51-7d0e2f6c4b10', name: 'Bench Wallet', icon, rdns: 'test.kassa.bench' }),
    provider,
  });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;

/**
 * Ready: the panel shows, visible and laid out, the button that connects a wallet, its first
 * step. `find` is a function expression returning that element or nothing; the time is
 * `performance.now()` (from navigation start) on the first animation frame it is found.
 */
export const readyProbe = (find: string) => `(() => {
  const find = ${find};
  const tick = () => {
    const element = find();
    if (element && element.checkVisibility() && element.getBoundingClientRect().width > 0)
      window.benchReadyAt = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

/** `<kassa-bridge>`'s button for a wallet it found (its list of wallets is the panel's first step). */
export const KASSA_WALLET_BUTTON = `() => document.querySelector('kassa-bridge')?.shadowRoot?.querySelector('button[part~="wallet"]')`;

/** LI.FI's main "Connect wallet" button under its form (the contained one; the header has a text-only one too). */
export const LIFI_CONNECT_BUTTON = `() => [...document.querySelectorAll('#root button.MuiButton-contained')].find((button) => /connect wallet/i.test(button.textContent ?? ''))`;
