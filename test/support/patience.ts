/**
 * How long a test waits for a state, an event or an answer before it gives up and says what it
 * waited for.
 *
 * Tests wait for what must happen, never for a time, and assert what happened and in what order,
 * never how fast (that is `npm run bench`'s job). This bound only turns a hang into a failure that
 * names what never came, so it is generous: a machine several times slower, or loaded by other
 * work, is well inside it. It is below the runners' own timeouts, so that the helper's message is
 * the one reported.
 */
export const PATIENCE_MS = 120_000;

/** The component tests' per-test timeout, and a command's: only a hang reaches it. */
export const TEST_TIMEOUT_MS = 2 * PATIENCE_MS + 60_000;

/** Node's test runner's timeout, which Node 20 applies to each file as a whole: a net for a hang only. */
export const FILE_TIMEOUT_MS = 60 * 60_000;

/** `promise`, or a rejection naming `what` once PATIENCE_MS has passed without it settling (a hang). */
export async function patiently<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: never settled`)), PATIENCE_MS);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}
