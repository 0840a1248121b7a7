import type { ApiConformance } from '../api-conformance.ts';
import type { Stack } from '../stack.ts';

/**
 * The walk of every operation (test/proxy/openapi-walk.test.ts), in parts: each part calls the
 * routes of one area with successes and errors, and the helpers check every answer against the
 * document (api-conformance.ts). `conformance` checks what they cannot: a stream's events.
 */
export interface Walk {
  stack: Stack;
  origin: string;
  conformance: ApiConformance;
}
