import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright';
import { ensureExtensionBuilt, EXTENSION_DIST } from '../extension.ts';
import { PATIENCE_MS } from '../patience.ts';

/**
 * Records in the approval window, as `window.armingProbe`, a timeline: the window's focus and blur
 * events (heard before the window's own listeners) and when the Approve / Connect button is inserted,
 * enabled and disabled, from the mutations of the approval's shadow root, watched from its creation.
 */
const ARMING_PROBE = `(() => {
  const timeline = [];
  window.armingProbe = timeline;
  const note = (what) => timeline.push({ what, at: performance.now() });
  window.addEventListener('focus', () => note('focus'));
  window.addEventListener('blur', () => note('blur'));
  let button = 'absent';
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    if (this.localName !== 'kassa-approval') return root;
    new MutationObserver(() => {
      const found = root.querySelector('.actions button:not(.secondary)');
      const now = !found ? 'absent' : found.disabled ? 'disabled' : 'enabled';
      if (now === button) return;
      if (button === 'absent') note('shown');
      if (now !== 'absent') note(now);
      button = now;
    }).observe(root, { subtree: true, childList: true, attributes: true });
    return root;
  };
})();`;

/**
 * A copy of the built extension whose approval page runs the probe as its first script, before the
 * page's own module. Not an init script: Playwright may attach to a window the service worker opened
 * only once it has loaded (seen on a busy machine), and an init script then runs too late to see it.
 */
export function extensionWithArmingProbe(): { dir: string; remove(): void } {
  ensureExtensionBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'kassa-extension-probed-'));
  cpSync(EXTENSION_DIST, dir, { recursive: true });
  const page = join(dir, 'ui', 'approval.html');
  const html = readFileSync(page, 'utf8');
  if (!html.includes('<script ')) throw new Error(`no script in ${page} to put the probe before`);
  writeFileSync(join(dir, 'ui', 'arming-probe.js'), ARMING_PROBE);
  writeFileSync(page, html.replace('<script ', '<script src="arming-probe.js"></script>\n    <script '));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export type ArmingStep = { what: 'focus' | 'blur' | 'shown' | 'enabled' | 'disabled'; at: number };

/** The timeline the probe recorded in an approval window. */
export const armingTimeline = (approval: Page) =>
  approval.evaluate(() => (window as unknown as { armingProbe: ArmingStep[] }).armingProbe);

/**
 * Each time the button turned enabled: how long it had been on screen with no blur since, counted
 * from the later of when it showed and the last focus event (the window may have had the focus from
 * its start, with no event).
 */
export function armedAfter(timeline: ArmingStep[]): number[] {
  const waits: number[] = [];
  let shown = Number.NaN;
  let focused = Number.NEGATIVE_INFINITY;
  let blurred = false;
  for (const step of timeline) {
    if (step.what === 'shown') shown = step.at;
    if (step.what === 'focus') [focused, blurred] = [step.at, false];
    if (step.what === 'blur') blurred = true;
    if (step.what === 'enabled') waits.push(blurred ? Number.NEGATIVE_INFINITY : step.at - Math.max(shown, focused));
  }
  return waits;
}

/** Waits on an approval window's timeline: for `count` steps `what` (`reached`), or how many there are now (`count`). */
export function armingSteps(approval: Page) {
  return {
    reached: (what: ArmingStep['what'], count: number) =>
      approval.waitForFunction(
        ([what, count]) =>
          (window as unknown as { armingProbe: ArmingStep[] }).armingProbe.filter((step) => step.what === what)
            .length >= count,
        [what, count] as const,
        { timeout: PATIENCE_MS },
      ),
    count: async (what: ArmingStep['what']) =>
      (await armingTimeline(approval)).filter((step) => step.what === what).length,
  };
}
