/**
 * The mobile wallets whose apps open a web page in their own browser, where their wallet is injected
 * into the page, through a universal link each documents: MetaMask
 * (docs.metamask.io, "Use deeplinks"), Coinbase Wallet (docs.cdp.coinbase.com, "Dapp browser"),
 * Trust Wallet (developer.trustwallet.com, "Deep Linking") and Phantom (docs.phantom.com, "browse").
 * Without the app installed, each link leads to the wallet's download page. Rainbow documents no such
 * link (only WalletConnect's), so it is not offered.
 */
export interface WalletApp {
  /** For its logo's class. */
  id: string;
  name: string;
  /** Its initial's background and text, for a logo drawn here (no image is fetched): both pass WCAG AA. */
  colors: readonly [background: string, text: string];
  /** The universal link that opens `page` in the app's browser. */
  link(page: URL): string;
}

const encoded = (page: URL) => encodeURIComponent(page.href);

export const WALLET_APPS: readonly WalletApp[] = [
  {
    id: 'metamask',
    name: 'MetaMask',
    colors: ['#e2761b', '#1d2433'],
    // The page without its scheme, as written (MetaMask's in-app browser does not decode it).
    link: (page) => `https://link.metamask.io/dapp/${page.href.replace(/^https?:\/\//, '')}`,
  },
  {
    id: 'coinbase',
    name: 'Coinbase Wallet',
    colors: ['#0052ff', '#ffffff'],
    link: (page) => `https://go.cb-w.com/dapp?cb_url=${encoded(page)}`,
  },
  {
    id: 'trust',
    name: 'Trust Wallet',
    colors: ['#0500ff', '#ffffff'],
    // coin_id 60: Ethereum's SLIP-44 index, the EVM provider the page needs.
    link: (page) => `https://link.trustwallet.com/open_url?coin_id=60&url=${encoded(page)}`,
  },
  {
    id: 'phantom',
    name: 'Phantom',
    colors: ['#ab9ff2', '#1d2433'],
    link: (page) => `https://phantom.app/ul/browse/${encoded(page)}?ref=${encodeURIComponent(page.origin)}`,
  },
];
