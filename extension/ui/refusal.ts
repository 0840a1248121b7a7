import type { Permission } from '../../schemas/operators.ts';
import { messageOf, UiError } from './client.ts';
import { fill, type UiLocale } from './ui-locale.ts';

/**
 * What a failed request says to the person: a permission their role lacks (a 403), named in their
 * language with the proxy's name for it; otherwise the worker's or the proxy's own words.
 */
export function refusalText(error: unknown, locale: UiLocale): string {
  if (!(error instanceof UiError) || !error.permission) return messageOf(error);
  const named = locale.people.permissions[error.permission as Permission] ?? error.permission;
  return fill(locale.m.permissionMissing, { permission: `${named} (${error.permission})` });
}
