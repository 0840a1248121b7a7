/** Approving (or denying) the extension's sign-in whose code the page shows. */
import { busy, call, problemText, say, words } from './page.ts';

export function wireDevice(): void {
  const actions = document.querySelector<HTMLElement>('[data-device]');
  if (!actions) return;
  const decide = (approve: boolean) => (event: Event) => {
    void busy(event.currentTarget as HTMLElement, async () => {
      const answer = await call('POST', '/operator/device/approve', { user_code: actions.dataset.device, approve });
      if (answer.status === 404) return say('device', words.deviceUnknown, 'danger');
      if (answer.status !== 200) return say('device', problemText(answer), 'danger');
      actions.hidden = true;
      say('device', approve ? words.deviceApproved : words.deviceDenied, approve ? 'success' : 'plain');
    });
  };
  actions.querySelector('[data-action="device-approve"]')?.addEventListener('click', decide(true));
  actions.querySelector('[data-action="device-deny"]')?.addEventListener('click', decide(false));
}
