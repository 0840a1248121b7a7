/** A failure the reforge service answers with 400 `{error}` (the seed: every operation's only error status). */
export class ReforgeError extends Error {}
