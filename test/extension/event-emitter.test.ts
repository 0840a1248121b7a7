/**
 * The provider's events (extension/content/event-emitter.ts) against Node's own `EventEmitter`, with
 * fast-check: any sequence of `on`, `once`, `prepend…`, `removeListener`, `off`, `removeAllListeners`,
 * `emit`, `listeners`, `listenerCount`, `eventNames`, `setMaxListeners` and `getMaxListeners`, the
 * `newListener` and `removeListener` events and `error` included, gives the same trace on both: which
 * listener is called, in what order, with what `this` and arguments, and what each method returns or
 * throws (a maximum that Node would warn about is not tried: Kassa does not warn). wallet-provider-events.test.ts
 * runs one such script on the provider in a page of the real extension, and shows there that a
 * listener that throws keeps none of the next ones from being called.
 */
import assert from 'node:assert/strict';
import { EventEmitter as NodeEventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EventEmitter } from '../../extension/content/event-emitter.ts';

const EVENTS = ['a', 'b', 'newListener', 'removeListener', 'error'] as const;
const LISTENERS = 4;

type Operation =
  | { kind: 'on' | 'addListener' | 'prependListener' | 'once' | 'prependOnceListener'; event: string; listener: number }
  | { kind: 'removeListener' | 'off'; event: string; listener: number }
  | { kind: 'removeAllListeners'; event: string | undefined }
  | { kind: 'emit'; event: string; argument: number }
  | { kind: 'listeners'; event: string }
  | { kind: 'listenerCount'; event: string; listener: number | undefined }
  | { kind: 'eventNames' }
  | { kind: 'setMaxListeners'; count: number }
  | { kind: 'getMaxListeners' };

const event = fc.constantFrom(...EVENTS);
const listener = fc.integer({ min: 0, max: LISTENERS - 1 });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('on', 'addListener', 'prependListener'), event, listener }),
  // Not a `once` listener of `removeListener` itself: when removeAllListeners() takes away several
  // copies of one function there, which one Node calls last depends on whether it stores them as one
  // function or an array, and no page can rely on that.
  fc.record({
    kind: fc.constantFrom('once', 'prependOnceListener'),
    event: event.filter((name) => name !== 'removeListener'),
    listener,
  }),
  fc.record({ kind: fc.constantFrom('removeListener', 'off'), event, listener }),
  fc.record({ kind: fc.constant('removeAllListeners'), event: fc.option(event, { nil: undefined }) }),
  fc.record({ kind: fc.constant('emit'), event, argument: fc.integer() }),
  fc.record({ kind: fc.constant('listeners'), event }),
  fc.record({ kind: fc.constant('listenerCount'), event, listener: fc.option(listener, { nil: undefined }) }),
  fc.record({ kind: fc.constant('eventNames') }),
);

type Listener = (...args: unknown[]) => void;
/** What both emitters offer, as the operations call it. */
interface Emitter {
  on(event: string, listener: Listener): unknown;
  addListener(event: string, listener: Listener): unknown;
  prependListener(event: string, listener: Listener): unknown;
  once(event: string, listener: Listener): unknown;
  prependOnceListener(event: string, listener: Listener): unknown;
  removeListener(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  removeAllListeners(event?: string): unknown;
  emit(event: string, ...args: unknown[]): boolean;
  listeners(event: string): unknown[];
  listenerCount(event: string, listener?: Listener): number;
  eventNames(): Array<string | symbol>;
  setMaxListeners(count: number): unknown;
  getMaxListeners(): number;
}

/** Runs the operations on `emitter`; the trace of calls and results. */
function run(emitter: Emitter, operations: readonly Operation[]): unknown[] {
  const trace: unknown[] = [];
  const listeners = Array.from(
    { length: LISTENERS },
    (_, index) =>
      function (this: unknown, ...args: unknown[]) {
        trace.push(['called', index, this === emitter, args.map(label)]);
      },
  );
  // Node's `removeListener` event names a `once` listener by its wrapper when the event had several
  // listeners; the `events` package MetaMask's provider bundles, and Kassa's, name the listener itself.
  function label(value: unknown): unknown {
    if (typeof value !== 'function') return value;
    const at = listeners.indexOf(value as (typeof listeners)[number]);
    if (at !== -1) return `listener ${at}`;
    const wrapped = (value as { listener?: unknown }).listener;
    return wrapped ? label(wrapped) : 'another function';
  }
  const result = (value: unknown) =>
    value === emitter ? 'the emitter' : Array.isArray(value) ? value.map(label) : value;
  for (const op of operations) {
    try {
      switch (op.kind) {
        case 'removeAllListeners':
          trace.push([
            op.kind,
            op.event,
            result(op.event === undefined ? emitter.removeAllListeners() : emitter.removeAllListeners(op.event)),
          ]);
          break;
        case 'emit':
          trace.push([op.kind, op.event, result(emitter.emit(op.event, op.argument))]);
          break;
        case 'listeners':
          trace.push([op.kind, op.event, result(emitter.listeners(op.event))]);
          break;
        case 'listenerCount':
          trace.push([
            op.kind,
            op.event,
            emitter.listenerCount(op.event, op.listener === undefined ? undefined : listeners[op.listener]),
          ]);
          break;
        case 'eventNames':
          trace.push([op.kind, result(emitter.eventNames())]);
          break;
        case 'setMaxListeners':
          trace.push([op.kind, op.count, result(emitter.setMaxListeners(op.count))]);
          break;
        case 'getMaxListeners':
          trace.push([op.kind, emitter.getMaxListeners()]);
          break;
        default:
          trace.push([op.kind, op.event, op.listener, result(emitter[op.kind](op.event, listeners[op.listener]!))]);
      }
    } catch (error) {
      trace.push([op.kind, 'threw', error instanceof Error]);
    }
  }
  return trace;
}

describe('the provider’s EventEmitter', () => {
  it('does what Node’s EventEmitter does, for any sequence of calls', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 40 }), (operations) => {
        assert.deepEqual(run(new EventEmitter(), operations), run(new NodeEventEmitter(), operations));
      }),
      { numRuns: 10_000 },
    );
  });

  it('keeps working frozen: its listeners are private', () => {
    const emitter = Object.freeze(new EventEmitter());
    const heard: unknown[] = [];
    emitter.on('chainChanged', (chainId: unknown) => heard.push(chainId));
    emitter.emit('chainChanged', '0x7a6a');
    assert.deepEqual(heard, ['0x7a6a']);
  });
});
