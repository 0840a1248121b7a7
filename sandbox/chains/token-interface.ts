import { Interface } from 'ethers';
import { REFORGE_TOKEN_ABI } from '../../schemas/reforge.ts';

/** The stablecoin's interface, for encoding calls and decoding events and custom errors. */
export const TOKEN_INTERFACE = new Interface(REFORGE_TOKEN_ABI);
