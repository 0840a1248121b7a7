/**
 * How long a test waits for a state or an event before it gives up and says what it waited for.
 *
 * Tests wait for what must happen, never for a time, and assert what happened and in what order,
 * never how fast (that is `npm run bench`'s job). This bound only turns a hang into a failure that
 * names what never came, so it is generous: a machine several times slower, or loaded by other
 * work, is well inside it. It is below the runners' own per-test timeouts (test/run.ts and the
 * component tests' config), so that the helper's message is the one reported.
 */
export const PATIENCE_MS = 120_000;

/** The runners' per-test timeout: only a hang reaches it. */
export const TEST_TIMEOUT_MS = 2 * PATIENCE_MS + 60_000;
