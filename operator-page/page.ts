/**
 * What every view of the operators' page shares: its words (a JSON block the server wrote), the
 * session's CSRF token, calls to the proxy, and the status lines that say what happened.
 */
import type { Words } from '../proxy/operator/signin/words/en.ts';

export type { Words };

/** The page's words, in its language. */
export const words: Words = JSON.parse(document.getElementById('kassa-words')?.textContent ?? '{}') as Words;

/** Fills a message's `{name}` placeholders. */
export const fill = (message: string, values: Record<string, string | number>): string =>
  message.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));

const csrf = document.querySelector<HTMLMetaElement>('meta[name="kassa-csrf"]')?.content ?? null;

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/**
 * Calls the proxy: JSON both ways, and on a signed-in page the session's CSRF token on every write.
 * A network failure answers status 0.
 */
export async function call<T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (csrf && method !== 'GET') headers['X-Kassa-CSRF'] = csrf;
  try {
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
    const text = await response.text();
    let parsed: unknown = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: text };
    }
    return { status: response.status, body: parsed as T };
  } catch {
    return { status: 0, body: {} as T };
  }
}

/** Shows `text` in the status line `name` (a live region), as news or as a problem. */
export function say(name: string, text: string, tone: 'danger' | 'success' | 'plain' = 'plain'): void {
  const line = document.querySelector<HTMLElement>(`[data-status="${name}"]`);
  if (!line) return;
  line.classList.toggle('danger', tone === 'danger');
  line.classList.toggle('success', tone === 'success');
  line.textContent = text;
}

/** What a refused call means for the person, in their words. */
export function problemText(answer: Answer<{ error?: string; details?: { problem?: string } }>): string {
  if (answer.status === 0) return words.unreachable;
  if (answer.status === 429) {
    const seconds = /(\d+)\s*s\b/.exec(answer.body.error ?? '')?.[1] ?? '60';
    return fill(words.limited, { seconds });
  }
  const byProblem: Record<string, string> = {
    link: words.linkInvalid,
    'admin-exists': words.adminExists,
    'email-taken': words.emailTaken,
    'not-made': words.notMade,
    'last-passkey': words.lastPasskey,
  };
  return (
    byProblem[answer.body.details?.problem ?? ''] ??
    fill(words.refused, { error: answer.body.error ?? String(answer.status) })
  );
}

/** Runs `work` with `button` busy (pressing it again does nothing meanwhile). */
export async function busy(button: HTMLElement | null, work: () => Promise<void>): Promise<void> {
  if (button?.getAttribute('aria-disabled') === 'true') return;
  button?.setAttribute('aria-disabled', 'true');
  try {
    await work();
  } finally {
    button?.removeAttribute('aria-disabled');
  }
}

/** Dates as the server wrote them (UTC), in the reader's own time zone and language. */
export function localTimes(): void {
  const format = new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: 'medium', timeStyle: 'short' });
  for (const time of document.querySelectorAll<HTMLTimeElement>('time[datetime]'))
    time.textContent = format.format(new Date(time.dateTime));
}

/** The language links keep what follows `#` (a link's token), which a plain link would drop. */
export function keepFragmentOnLanguageLinks(): void {
  for (const link of document.querySelectorAll<HTMLAnchorElement>('a[data-language]'))
    link.addEventListener('click', () => {
      if (location.hash) link.hash = location.hash;
    });
}
