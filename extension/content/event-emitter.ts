/**
 * Node's `EventEmitter` API, as EIP-1193 asks of a provider ("on and removeListener … per the Node.js
 * EventEmitter API"; MetaMask's provider extends it): `on`/`addListener`, `prependListener`, `once`,
 * `prependOnceListener`, `removeListener`/`off`, `removeAllListeners`, `emit`, `listeners`,
 * `listenerCount`, `eventNames`, `setMaxListeners`, `getMaxListeners`, and the `newListener` and
 * `removeListener` events. Listeners are
 * called in order with the emitter as `this`, over a copy of the list (one removed during an emit is
 * still called by it); a listener added twice is called twice and removed once per `removeListener`,
 * the last added first. `emit('error')` with no listener throws, as Node's does.
 *
 * One difference, MetaMask's too (its SafeEventEmitter): a listener that throws does not keep the
 * next ones from hearing the event; its error is thrown again on its own task, so the page still sees
 * it. The listeners live in a private field, so an instance can be frozen and keep working.
 */
type Listener = (...args: never[]) => unknown;
type EventName = string | symbol;

/** A `once` listener as Node keeps it: the wrapper, and the function the page gave. */
interface Entry {
  readonly call: Listener;
  readonly listener: Listener;
}

function checkListener(listener: unknown): asserts listener is Listener {
  if (typeof listener !== 'function')
    throw new TypeError(`The "listener" argument must be of type function. Received ${typeof listener}`);
}

export class EventEmitter {
  #events = new Map<EventName, Entry[]>();
  #maxListeners = 10;

  #add(event: EventName, listener: Listener, once: boolean, prepend: boolean): this {
    checkListener(listener);
    if (this.#events.has('newListener')) this.emit('newListener', event, listener);
    let fired = false;
    const call: Listener = once
      ? (...args) => {
          if (fired) return;
          fired = true;
          this.removeListener(event, call);
          return Reflect.apply(listener, this, args) as unknown;
        }
      : listener;
    const entry = { call, listener };
    const list = this.#events.get(event);
    if (!list) this.#events.set(event, [entry]);
    else if (prepend) list.unshift(entry);
    else list.push(entry);
    return this;
  }

  on(event: EventName, listener: Listener): this {
    return this.#add(event, listener, false, false);
  }

  addListener(event: EventName, listener: Listener): this {
    return this.#add(event, listener, false, false);
  }

  prependListener(event: EventName, listener: Listener): this {
    return this.#add(event, listener, false, true);
  }

  once(event: EventName, listener: Listener): this {
    return this.#add(event, listener, true, false);
  }

  prependOnceListener(event: EventName, listener: Listener): this {
    return this.#add(event, listener, true, true);
  }

  removeListener(event: EventName, listener: Listener): this {
    checkListener(listener);
    const list = this.#events.get(event);
    if (!list) return this;
    const at = list.findLastIndex((entry) => entry.call === listener || entry.listener === listener);
    if (at === -1) return this;
    const [removed] = list.splice(at, 1);
    if (list.length === 0) this.#events.delete(event);
    if (this.#events.has('removeListener')) this.emit('removeListener', event, removed!.listener);
    return this;
  }

  off(event: EventName, listener: Listener): this {
    return this.removeListener(event, listener);
  }

  /**
   * Every listener of `event`, the last added first; called with no argument (not `undefined`, as in
   * Node), of every event, `removeListener` last.
   */
  removeAllListeners(...only: [event?: EventName]): this {
    const [event] = only;
    if (only.length === 0) {
      for (const name of this.eventNames()) if (name !== 'removeListener') this.removeAllListeners(name);
      return this.removeAllListeners('removeListener');
    }
    if (event === undefined) return this;
    if (!this.#events.has('removeListener')) {
      this.#events.delete(event);
      return this;
    }
    const list = this.#events.get(event) ?? [];
    // A removeListener listener may take others away meanwhile (a `once` one takes itself).
    for (let at = list.length - 1; at >= 0; at--) {
      const entry = list[at];
      if (entry) this.removeListener(event, entry.call);
    }
    return this;
  }

  /** Calls every listener of `event` with `args`; whether there was any. */
  emit(event: EventName, ...args: unknown[]): boolean {
    const list = this.#events.get(event);
    if (!list) {
      if (event === 'error')
        throw args[0] instanceof Error ? args[0] : new Error(`Unhandled error. (${String(args[0])})`);
      return false;
    }
    for (const { call } of [...list]) {
      try {
        Reflect.apply(call, this, args);
      } catch (error) {
        setTimeout(() => {
          throw error;
        });
      }
    }
    return true;
  }

  listeners(event: EventName): Listener[] {
    return (this.#events.get(event) ?? []).map((entry) => entry.listener);
  }

  listenerCount(event: EventName, listener?: Listener): number {
    const list = this.#events.get(event) ?? [];
    return listener === undefined
      ? list.length
      : list.filter((entry) => entry.call === listener || entry.listener === listener).length;
  }

  eventNames(): EventName[] {
    return [...this.#events.keys()];
  }

  /** Kept for callers (libraries set it); Kassa warns of no leak: a page's listeners are its own affair. */
  setMaxListeners(count: number): this {
    if (typeof count !== 'number' || count < 0 || Number.isNaN(count))
      throw new RangeError(`The value of "n" is out of range. It must be a non-negative number. Received ${count}`);
    this.#maxListeners = count;
    return this;
  }

  getMaxListeners(): number {
    return this.#maxListeners;
  }
}
