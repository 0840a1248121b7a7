/**
 * How the extension's pages ask the service worker: one runtime message per request, its answer
 * checked against `uiResponseSchema`. The pages never call the proxy or a chain themselves. The
 * schemas load with the first request, after the shell's first render, not before it.
 */
import { UI_CHANNEL } from '../channels.ts';
import type { UiAnswers, UiKind, UiRequestOf } from '../messages.ts';

export class UiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** With a 403: the permission the operator's role lacks (`orders:write`). */
    readonly permission?: string,
  ) {
    super(message);
    this.name = 'UiError';
  }
}

/** One request to the service worker; its answer is typed by its kind (UiAnswers). */
export async function ask<K extends UiKind>(request: UiRequestOf<K> & { kind: K }): Promise<UiAnswers[K]> {
  const schemas = import('../messages.ts');
  let raw: unknown;
  try {
    raw = await chrome.runtime.sendMessage({ channel: UI_CHANNEL, request });
  } catch (error) {
    throw new UiError(`Kassa's background worker did not answer: ${(error as Error).message}`);
  }
  const response = (await schemas).uiResponseSchema.safeParse(raw);
  if (!response.success) throw new UiError('Kassa’s background worker answered something unexpected');
  if (!response.data.ok) throw new UiError(response.data.error, response.data.status, response.data.permission);
  return response.data.value as UiAnswers[K];
}

/** The message of anything thrown, for a status line. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
