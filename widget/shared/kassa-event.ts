/**
 * Dispatches a `kassa-*` event from a Kassa element. Events bubble and are composed, so a page hears
 * them on the element, on `document`, or on a framework's host element, wherever the element sits
 * (inside other shadow roots too).
 *
 * @returns false when a listener called `preventDefault()` on a cancelable event.
 */
export function emit<T>(target: EventTarget, type: `kassa-${string}`, detail: T, cancelable = false): boolean {
  return target.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true, cancelable }));
}
