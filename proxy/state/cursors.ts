/**
 * The cursors of the stores' lists, newest first: opaque to clients, the position (a time, an id) of
 * the last item seen. Each list knows the form of its ids, and has an error of its own for a cursor
 * it did not return (the routes answer 400).
 */
export class InvalidCursorError extends Error {
  constructor() {
    super('cursor is not one this list returned');
  }
}

/** A page of a list: its items under the list's name, and the cursor of the next page (null: the last). */
export type Page<Name extends string, T> = { [name in Name]: T[] } & { nextCursor: string | null };

export const encodePosition = (time: number, id: string): string => Buffer.from(`${time}:${id}`).toString('base64url');

/** The position a cursor names, its id of the form `id` (a pattern); another cursor throws `Invalid`. */
export function decodePosition(
  cursor: string,
  id: string,
  Invalid: new () => InvalidCursorError = InvalidCursorError,
): [time: number, id: string] {
  const match = new RegExp(`^(\\d{1,16}):(${id})$`).exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new Invalid();
  return [Number(match[1]), match[2]!];
}

/**
 * A page of a list read one deeper than asked (or told there is more): its items, and the cursor after
 * the last of them, from its position (createdAt, id).
 */
export function pageAfter<T>(
  found: T[],
  limit: number,
  more: boolean,
  position: (item: T) => [number, string],
): { items: T[]; nextCursor: string | null } {
  const items = found.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: (more || found.length > limit) && last ? encodePosition(...position(last)) : null };
}
