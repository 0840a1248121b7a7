import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { Fault, FaultRequest, SandboxService } from '../schemas/sandbox.ts';

/**
 * Upstream faults on demand, so clients can be tested against the ways real services fail.
 * A fault applies to the next `times` requests of its service (optionally only under one path, or
 * of one method);
 * `stage: "after"` lets the request take effect first and then spoils the answer, the case where
 * a client cannot know whether its request was processed.
 */
export class FaultBook {
  private faults: Fault[] = [];
  private nextId = 1;

  add(request: FaultRequest): Fault {
    const fault: Fault = { id: this.nextId++, stage: 'before', ...request, remaining: request.times };
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }

  list(): Fault[] {
    return this.faults.filter((fault) => fault.remaining > 0);
  }

  /** Takes the first pending fault for this request, counting it down. */
  take(service: SandboxService, method: string, path: string): Fault | undefined {
    const fault = this.faults.find(
      (candidate) =>
        candidate.service === service &&
        candidate.remaining > 0 &&
        (!candidate.method || candidate.method === method) &&
        (!candidate.path || path.startsWith(candidate.path)),
    );
    if (fault) fault.remaining -= 1;
    return fault;
  }
}

export interface FaultInjectionOptions {
  service: SandboxService;
  /** Where the service is mounted (`/pay`); a fault's `path` is relative to it. */
  basePath: string;
  book: FaultBook;
  /** The body this service answers with its own 429 and 500 (each service has its own error shape). */
  errorBody: (kind: '429' | '500') => Record<string, string>;
}

const DEFAULT_SLOW_MS = 15_000;

export const faultInjection = (options: FaultInjectionOptions) =>
  createMiddleware<{ Bindings: HttpBindings }>(async function faultInjection(c, next) {
    const fault = options.book.take(options.service, c.req.method, c.req.path.slice(options.basePath.length) || '/');
    if (!fault) return next();
    if (fault.kind === 'slow') {
      // Held before the request takes effect, or ("after") once it has: an answer that is late after the fact.
      if (fault.stage === 'after') await next();
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? DEFAULT_SLOW_MS));
      if (fault.stage !== 'after') await next();
      return;
    }
    if (fault.stage === 'after') await next();
    c.res = spoiled(c, fault.kind, options);
  });

function spoiled(
  c: Context<{ Bindings: HttpBindings }>,
  kind: Exclude<Fault['kind'], 'slow'>,
  options: FaultInjectionOptions,
): Response {
  switch (kind) {
    case '429':
      return Response.json(options.errorBody('429'), { status: 429, headers: { 'Retry-After': '1' } });
    case '500':
      return Response.json(options.errorBody('500'), { status: 500 });
    case 'malformed':
      return new Response('{"status": true, "tx', { status: 200, headers: { 'Content-Type': 'application/json' } });
    case 'reset':
      c.env?.incoming?.socket?.destroy();
      return new Response(null, { status: 500 });
  }
}
