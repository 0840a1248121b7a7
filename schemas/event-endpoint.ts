import { z } from 'zod';

/**
 * Where the proxy sends the merchant's events (KASSA_EVENTS_URL), as the operator sees it: whether
 * events go there, and if not since when and why.
 */
export const eventEndpointSchema = z
  .object({
    /** Stable for one address: how the operator's routes name it. */
    id: z.string(),
    url: z.string(),
    /** false after repeated 410 Gone answers (the receiver wants no more events), until an operator enables it. */
    enabled: z.boolean(),
    disabledAt: z.string().nullable(),
    /** Why events stopped going there, in words. */
    disabledReason: z.string().nullable(),
  })
  .meta({ id: 'EventEndpoint' });
export type EventEndpointView = z.infer<typeof eventEndpointSchema>;
