/** The signed-in person's page: signing out, their sessions, passkeys and API tokens. */
import { makePasskey } from './passkey-prompts.ts';
import { busy, call, problemText, say, words } from './page.ts';

const reload = () => location.reload();

/** Signs this browser out and shows the sign-in again (of the page at `then`). */
export async function signOut(then = '/operator'): Promise<void> {
  const answer = await call('POST', '/operator/signout');
  if (answer.status === 204 || answer.status === 401) location.assign(then);
  else say('account', problemText(answer), 'danger');
}

export function wireAccount(): void {
  document.querySelector('[data-action="signout"]')?.addEventListener('click', (event) => {
    void busy(event.currentTarget as HTMLElement, () => signOut());
  });

  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-action="revoke"]'))
    button.addEventListener('click', () => {
      void busy(button, async () => {
        const answer = await call('DELETE', `/api/credentials/${encodeURIComponent(button.dataset.id ?? '')}`);
        if (answer.status !== 204) return say('sessions', problemText(answer), 'danger');
        if (button.dataset.current === 'true') location.assign('/operator');
        else reload();
      });
    });

  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-action="remove-passkey"]'))
    button.addEventListener('click', () => {
      void busy(button, async () => {
        const answer = await call('DELETE', `/api/operator/passkeys/${encodeURIComponent(button.dataset.id ?? '')}`);
        if (answer.status === 204) reload();
        else say('passkeys', problemText(answer), 'danger');
      });
    });

  const addPasskey = document.querySelector<HTMLFormElement>('form[data-form="add-passkey"]');
  addPasskey?.addEventListener('submit', (event) => {
    event.preventDefault();
    const passkeyName = new FormData(addPasskey).get('passkeyName');
    void busy(addPasskey.querySelector('button'), async () => {
      const made = await makePasskey('/api/operator/passkeys/options', { passkeyName }, '/api/operator/passkeys');
      if (!made.ok) return say('passkeys', made.message, 'danger');
      say('passkeys', words.passkeyAdded, 'success');
      reload();
    });
  });

  const tokenForm = document.querySelector<HTMLFormElement>('form[data-form="token"]');
  const shown = document.querySelector<HTMLElement>('[data-new-token]');
  tokenForm?.addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(tokenForm);
    void busy(tokenForm.querySelector('button'), async () => {
      const answer = await call<{ token?: string; error?: string }>('POST', '/api/operator/tokens', {
        name: form.get('name'),
        role: form.get('role'),
        expiresInDays: Number(form.get('expiresInDays')),
      });
      if (answer.status !== 201 || !answer.body.token) return say('tokens', problemText(answer), 'danger');
      // Shown once, here only: the proxy keeps its hash.
      const field = document.querySelector<HTMLInputElement>('#new-token')!;
      field.value = answer.body.token;
      tokenForm.hidden = true;
      shown!.hidden = false;
      field.focus();
      field.select();
    });
  });
  document.querySelector('[data-action="copy-token"]')?.addEventListener('click', () => {
    const value = document.querySelector<HTMLInputElement>('#new-token')?.value ?? '';
    void navigator.clipboard.writeText(value).then(
      () => say('tokens', words.copied, 'success'),
      () => document.querySelector<HTMLInputElement>('#new-token')?.select(),
    );
  });
  document.querySelector('[data-action="reload"]')?.addEventListener('click', reload);
}
