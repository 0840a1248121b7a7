import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  DEVICE_GRANT_TYPE,
  deviceApprovalSchema,
  deviceApproveRequestSchema,
  deviceCodeRequestSchema,
  deviceCodeSchema,
  deviceTokenErrorSchema,
  deviceTokenRequestSchema,
  deviceTokenSchema,
  type DeviceTokenError,
} from '../../schemas/operators.ts';
import { clientAddress } from '../../server-kit/client-address.ts';
import { isRecord, parseJsonBody, readJsonBody } from '../../server-kit/json-body.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, RATE_LIMITED, STORE_DOWN } from '../http/openapi/problems.ts';
import { publicOrigin } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import { DeviceTokenRefusal } from './device-grant.ts';
import { operatorGuards, type OperatorEnv } from './operator-auth.ts';
import { audited } from './dual-control.ts';

const FORM = 'application/x-www-form-urlencoded';

/**
 * RFC 8628's two endpoints for the extension (a device code, then polls for its token) and the
 * approval a signed-in operator makes for themselves. The page at `/operator/device` that asks them to
 * confirm the code is the sign-in page's.
 */
export function deviceRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, operators } = services;
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(deviceOperations, operators.access);
  const starts = clientRateLimit({
    name: 'device-codes',
    limit: config.createRateLimit,
    trustProxy: config.trustProxy,
  });

  app.post('/operator/device/code', starts, async (c) => {
    const body = deviceCodeRequestSchema.safeParse(await grantBody(c));
    if (!body.success) throw new HttpProblem(400, describeZodError(body.error));
    const started = await operators.deviceGrant.start({
      clientName: body.data.client_name ?? 'Kassa extension',
      ip: clientAddress(c, config.trustProxy),
      userAgent: c.req.header('User-Agent') ?? null,
    });
    const page = `${publicOrigin(config.publicUrl, c.req.url) ?? new URL(c.req.url).origin}/operator/device`;
    c.header('Cache-Control', 'no-store');
    return c.json({
      device_code: started.deviceCode,
      user_code: started.userCode,
      verification_uri: page,
      verification_uri_complete: `${page}?user_code=${started.userCode}`,
      expires_in: started.expiresIn,
      interval: started.interval,
    });
  });

  app.post('/operator/device/token', async (c) => {
    c.header('Cache-Control', 'no-store');
    const refuse = (error: DeviceTokenError['error'], description: string) =>
      c.json({ error, error_description: description } satisfies DeviceTokenError, 400);
    const body = await grantBody(c).catch((error: unknown) => {
      if (error instanceof HttpProblem) return error;
      throw error;
    });
    if (body instanceof HttpProblem) return refuse('invalid_request', body.message);
    const parsed = deviceTokenRequestSchema.safeParse(body);
    if (!parsed.success)
      return typeof body.grant_type === 'string' && body.grant_type !== DEVICE_GRANT_TYPE
        ? refuse('unsupported_grant_type', `grant_type must be ${DEVICE_GRANT_TYPE}`)
        : refuse('invalid_request', describeZodError(parsed.error));
    try {
      return c.json(await operators.deviceGrant.poll(parsed.data.device_code));
    } catch (error) {
      if (error instanceof DeviceTokenRefusal) return refuse(error.code, error.message);
      throw error;
    }
  });

  app.post('/operator/device/approve', guard('POST /operator/device/approve'), async (c) => {
    const parsed = await parseJsonBody(c, deviceApproveRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const device = await operators.deviceGrant.decide(parsed.data.user_code, c.var.operator, parsed.data.approve);
    await audited(c, operators, device.state === 'approved' ? 'device.approved' : 'device.denied', {
      after: { clientName: device.clientName, ip: device.ip, userAgent: device.userAgent },
    });
    return c.json({
      state: device.state === 'approved' ? 'approved' : 'denied',
      clientName: device.clientName,
      requestedAt: new Date(device.createdAt).toISOString(),
    } satisfies z.infer<typeof deviceApprovalSchema>);
  });

  return app;
}

/** The RFC's form body, or JSON: as an object of fields (a 400 for anything else). */
async function grantBody(c: Context): Promise<Record<string, unknown>> {
  if ((c.req.header('Content-Type') ?? '').toLowerCase().startsWith(FORM)) {
    const text = await c.req.text();
    const fields: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(text)) {
      if (name in fields) throw new HttpProblem(400, `${name} is given twice`);
      fields[name] = value;
    }
    return fields;
  }
  const body = await readJsonBody(c);
  if (!body.ok) throw new HttpProblem(400, body.error);
  if (body.value !== undefined && !isRecord(body.value))
    throw new HttpProblem(400, 'Request body must be a JSON object or a form');
  return body.value ?? {};
}

const BECAUSE_DEVICE =
  'RFC 8628: the device (the extension) has no credential yet; what it gets is worth nothing until a signed-in operator approves its user code.';

export const deviceOperations: ApiOperations = {
  'POST /operator/device/code': {
    operationId: 'startDeviceSignIn',
    summary: 'Start a device sign-in (RFC 8628)',
    description:
      'The extension asks for a code: it shows `user_code` and polls `POST /operator/device/token` every `interval` seconds, while the operator opens `verification_uri` signed in and approves that code. Also accepts the RFC’s `application/x-www-form-urlencoded` body.',
    audience: 'operator',
    access: { auth: 'public', because: BECAUSE_DEVICE },
    request: {
      schema: deviceCodeRequestSchema,
      example: { client_name: 'Kassa extension on Chromium' },
    },
    responses: {
      200: {
        description: 'The codes',
        json: {
          schema: deviceCodeSchema,
          example: {
            device_code: 'GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS',
            user_code: 'WDJB-MJHT',
            verification_uri: 'https://pay.shop.example/operator/device',
            verification_uri_complete: 'https://pay.shop.example/operator/device?user_code=WDJB-MJHT',
            expires_in: 600,
            interval: 5,
          },
        },
      },
    },
    errors: { 400: `${BAD_BODY}; client_name is at most 100 characters`, 429: RATE_LIMITED, 503: STORE_DOWN },
  },
  'POST /operator/device/token': {
    operationId: 'pollDeviceToken',
    summary: 'Poll for a device token (RFC 8628)',
    description:
      'Once the operator approved the code, the one poll after it gets the device token (`kassa_dev_…`), which acts as that operator with their role until it expires, is signed out or revoked. Before, a 400 with the RFC’s error code: `authorization_pending` (poll again after `interval`), `slow_down` (wait 5 s more from now on), `access_denied`, `expired_token`. Also accepts the RFC’s `application/x-www-form-urlencoded` body.',
    audience: 'operator',
    access: { auth: 'public', because: BECAUSE_DEVICE },
    request: {
      schema: deviceTokenRequestSchema,
      example: {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: 'GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS',
      },
    },
    responses: {
      200: {
        description: 'The device token, given once',
        json: {
          schema: deviceTokenSchema,
          example: {
            access_token: 'kassa_dev_5rNt0rF2cQb7hJx9yWm3kLp8sVd4aZq1eGu6iOo2TjY',
            token_type: 'Bearer',
            expires_in: 2592000,
            operator: { name: 'Ada Lovelace', email: 'ada@shop.example', role: 'finance' },
          },
        },
      },
      400: {
        description: 'No token (yet): the RFC’s error code and a sentence',
        json: {
          schema: deviceTokenErrorSchema,
          example: { error: 'authorization_pending', error_description: 'The code has not been approved yet' },
        },
      },
    },
    errors: { 503: STORE_DOWN },
  },
  'POST /operator/device/approve': {
    operationId: 'approveDevice',
    summary: 'Approve or deny a device sign-in',
    description:
      'The signed-in operator confirms that the code matches the one their extension shows: the device then acts as them. Denying ends that sign-in.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    request: { schema: deviceApproveRequestSchema, example: { user_code: 'WDJB-MJHT', approve: true } },
    responses: {
      200: {
        description: 'Decided',
        json: {
          schema: deviceApprovalSchema,
          example: {
            state: 'approved',
            clientName: 'Kassa extension on Chromium',
            requestedAt: '2026-03-02T09:14:05.000Z',
          },
        },
      },
    },
    errors: {
      400: BAD_BODY,
      403: 'A write with the session cookie lacks the X-Kassa-CSRF header or comes from another origin',
      404: 'No device sign-in waits with this code; it may have expired',
      409: 'The code was approved or denied already',
      503: STORE_DOWN,
    },
  },
};
