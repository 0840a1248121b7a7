/**
 * The reforge token's ABI, apart from the wire schemas so that browser code (the wallet panel, the
 * extension's content) can decode transactions without loading zod.
 */
/**
 * The token contract's interface, human-readable for ethers' `Interface`: what the wallet panel
 * needs to decode a prepared transaction and the extension to preview it, and what readers of the
 * destination chain need to see an arrival (`Transfer`, `ReforgeMint`). Includes the ERC-20 custom
 * errors of the token's base, so a revert such as an insufficient balance decodes to its name.
 */
export const REFORGE_TOKEN_ABI = [
  'function reforge(uint256 amount, uint256 destinationChainId, address destinationToken) returns (bytes32 burnId)',
  'function reforgeMint(address to, uint256 amount, bytes32 burnId)',
  'function settled(bytes32 burnId) view returns (bool)',
  'function relayer() view returns (address)',
  'function burnNonce() view returns (uint256)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event ReforgeBurn(address indexed from, uint256 amount, uint256 indexed destinationChainId, address destinationToken, bytes32 indexed burnId)',
  'event ReforgeMint(address indexed to, uint256 amount, bytes32 indexed burnId)',
  'error ZeroAmount()',
  'error SameChain(uint256 chainId)',
  'error NotRelayer(address caller)',
  'error AlreadySettled(bytes32 burnId)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
] as const;
