/**
 * A link's first passkey (`/operator/invite#<token>`, `/operator/setup#<token>`): the token is read
 * from after `#`, which no server or log sees, and sent in a request body only.
 */
import { makePasskey } from './passkey-prompts.ts';
import { busy, call, fill, problemText, say, words } from './page.ts';

interface LinkLookup {
  operator: { name: string; email: string; role: 'viewer' | 'support' | 'finance' | 'admin' } | null;
}

export async function wireLink(kind: 'invite' | 'setup'): Promise<void> {
  const link = kind === 'setup' ? 'setup' : 'invitation';
  const token = location.hash.slice(1);
  const intro = document.querySelector<HTMLElement>('[data-link-intro]')!;
  const form = document.querySelector<HTMLFormElement>('form[data-form="link"]')!;
  const found = await call<LinkLookup & { error?: string; details?: { problem?: string } }>('POST', '/operator/link', {
    link,
    token,
  });
  if (found.status !== 200) {
    intro.textContent = '';
    return say('link', /^[A-Za-z0-9_-]{43}$/.test(token) ? problemText(found) : words.linkInvalid, 'danger');
  }
  const invited = found.body.operator;
  intro.textContent = invited
    ? fill(words.inviteIntro, { name: invited.name, role: words.roles[invited.role] })
    : words.setupIntro;
  form.hidden = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fields = Object.fromEntries(new FormData(form)) as Record<string, string>;
    void busy(form.querySelector('button'), async () => {
      const made = await makePasskey('/operator/passkeys/options', { link, token, ...fields }, '/operator/passkeys');
      if (!made.ok) return say('link', made.message, 'danger');
      // Signed in: the link is used, and leaves the address bar and history.
      location.replace('/operator');
    });
  });
}
