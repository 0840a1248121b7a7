import { http } from '../http.ts';
import { as, type TestOperator } from '../operators.ts';
import { openSse } from '../sse-client.ts';
import type { Walk } from './walk.ts';

/** Payment links, by the merchant's server and by an operator (a customer starts paying one), and counter mode. */
export async function walkLinks({ stack, origin }: Walk, viewer: TestOperator): Promise<void> {
  for (const base of ['/api/links', '/api/operator/links']) {
    const as = base === '/api/links' ? stack.merchant : stack.operator;
    const made = await as(base, { body: { title: 'Lesson', amount: '5', currencyCode: 'EUR', reference: 'L-{n}' } });
    const code = made.body.code as string;
    await as(base, { body: { title: 'Lesson' } });
    await as(`${base}?limit=1`);
    await as(`${base}/${code}`);
    await as(`${base}/${code}/pause`, { method: 'POST' });
    await as(`${base}/${code}/pause`, { method: 'POST' });
    await http(`${origin}/api/links/${code}/checkout`, { body: {} });
    await as(`${base}/${code}/resume`, { method: 'POST' });
    // The page a customer can pay on, and its script.
    const page = await http(`${origin}/l/${code}`, { headers: { Accept: 'text/html' } });
    await http(`${origin}${/src="(\/links\/scripts\/[^"]+)"/.exec(page.text)?.[1]}`);
    await http(`${origin}/api/links/${code}/checkout`, { body: {} });
    await http(`${origin}/api/links/${code}/checkout`, { body: { amount: '6' } });
    await as(`${base}/${code}/payments`);
    await as(`${base}/${code}/payments/export`);
    await as(`${base}/${code}/end`, { method: 'POST' });
    await http(`${origin}/api/links/${code}/checkout`, { body: {} });
    await as(`${base}/AAAAAAAAAAAAAAAAAAAAAAAA`);
    await http(`${origin}/l/${code}`, { headers: { Accept: 'text/html' } });
    await http(`${origin}/l/${code}/qr.svg`);
    await http(`${origin}/l/${code}/qr.png`);
  }
  // Counter mode: asked for at the till, read, followed (the stream's head), cancelled; refused ones.
  const asked = await stack.operator('/api/operator/counter', { body: { amount: '12.50', note: 'Table 4' } });
  const counterCode = asked.body.code as string;
  await stack.operator(`/api/operator/counter/${counterCode}`);
  const counterStream = openSse(`${origin}/api/operator/counter/${counterCode}/events`, {
    Authorization: `Bearer ${stack.admin.token}`,
  });
  await counterStream.waitForEvents(1);
  await stack.operator(`/api/operator/counter/${counterCode}/cancel`, { method: 'POST' });
  await counterStream.waitForClose();
  await stack.operator(`/api/operator/counter/${counterCode}/cancel`, { method: 'POST' });
  await stack.operator('/api/operator/counter', { body: { amount: '100000', note: 'Too much' } });
  await stack.operator('/api/operator/counter', { body: { amount: '1' } });
  await stack.operator('/api/operator/counter/AAAAAAAAAAAAAAAAAAAAAAAA');
  await stack.operator('/api/operator/counter/AAAAAAAAAAAAAAAAAAAAAAAA/events');
  await as(origin, viewer)('/api/operator/counter', { body: { amount: '1', note: 'No' } });
  await stack.operator('/api/operator/links?kind=counter');
  await stack.operator('/api/operator/links?kind=other');
  await http(`${origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA`);
  await http(`${origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA`, { headers: { Accept: 'text/html' } });
  await http(`${origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA/qr.svg`);
  await http(`${origin}/links/scripts/link-0000000000000000.js`);
}
