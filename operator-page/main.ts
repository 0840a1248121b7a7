/**
 * The operators' page's one script (served by the proxy under a strict CSP): passkey prompts and the
 * writes of the view the server rendered (`body[data-view]`). Nothing here writes HTML.
 */
import { wireAccount } from './account.ts';
import { wireCounter } from './counter.ts';
import { wireDevice } from './device.ts';
import { wireLink } from './link.ts';
import { signInWithPasskey } from './passkey-prompts.ts';
import { busy, keepFragmentOnLanguageLinks, localTimes, say, words } from './page.ts';

function wireSignin(): void {
  const button = document.querySelector<HTMLButtonElement>('[data-action="signin"]');
  button?.addEventListener('click', () => {
    void busy(button, async () => {
      say('signin', words.working);
      const outcome = await signInWithPasskey();
      // Signed in: the same address shows the signed-in view (the account, or the device's approval).
      if (outcome.ok) location.reload();
      else say('signin', outcome.message, 'danger');
    });
  });
}

localTimes();
keepFragmentOnLanguageLinks();
const view = document.body.dataset.view;
if (view === 'signin') wireSignin();
else if (view === 'account') wireAccount();
else if (view === 'device') wireDevice();
else if (view === 'counter') wireCounter();
else if (view === 'invite' || view === 'setup') void wireLink(view);
