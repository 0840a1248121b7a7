/**
 * The one message Kassa's wallet signs (issue 28): a Kassa purchase's ownership proof, in real
 * Chromium with the built extension, against a real proxy with the on-ramp on and the emulator's
 * chains. A shop's page gets a quote from the proxy and asks Kassa to `personal_sign` its message:
 * the approval window shows it in words, Approve signs it with the vault key, and the proxy accepts
 * the signature (a purchase is made). Everything else is refused before any window opens, with its
 * reason: other messages, other signing methods, a message for another site (the hostile page holds
 * the shop's genuine message), for another account, expired, issued in the future, with anything
 * appended, on a chain the proxy does not list or naming another chain than its Chain ID.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { hexlify, toUtf8Bytes, verifyMessage } from 'ethers';
import type { Page } from 'playwright';
import { formatSiweMessage, parseSiweMessage, purchaseStatement, type SiweMessage } from '../../lib/siwe.ts';
import { anvilAccount } from '../support/chains.ts';
import {
  approvalWindow,
  configure,
  connectDapp,
  importVaultKey,
  launchExtension,
  openDapp,
  press,
  providerCall as call,
  refusedWithoutWindow,
  type LoadedExtension,
} from '../support/extension.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { HOST_RULES, startSites, type Sites } from '../support/sites.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const PASSWORD = 'a long enough password';
const ACCOUNT = anvilAccount(4);
const OTHER = anvilAccount(6);
const TWO = 31338;

/** What the user reads in the approval window at `selector`, spaces made single. */
const shown = async (approval: Page, selector: string) =>
  ((await approval.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** `personal_sign`'s first param as libraries send it: the message's UTF-8 bytes in hex. */
const utf8Hex = (text: string) => hexlify(toUtf8Bytes(text));

describe('extension: the purchase proof, the one message Kassa signs', () => {
  let sites: Sites;
  let stack: Stack;
  let extension: LoadedExtension;
  let shop: Page;
  let evil: Page;

  const origin = (host: string) => sites.origin(host);
  /** A quote the proxy issues to a page of `from` (its Origin, as a browser sends it). */
  const quote = async (from: string, body: Record<string, unknown> = {}) => {
    const answer = await stack.browser('/api/onramp/quotes', {
      body: { wallet: ACCOUNT.address, chainId: TWO, symbol: 'eEUR', amount: '25', ...body },
      headers: { Origin: from },
    });
    assert.equal(answer.status, 201, answer.text);
    return answer.body as { quoteId: string; message: string };
  };
  /** A message as the proxy writes them, for `page`'s origin, with fields changed. */
  const crafted = (page: Page, change: Partial<SiweMessage> = {}) => {
    const url = new URL(page.url());
    const now = Date.now();
    return formatSiweMessage({
      domain: url.host,
      address: ACCOUNT.address,
      statement: purchaseStatement({
        tokens: '25',
        symbol: 'eEUR',
        chainName: 'Kassa Local Two',
        payment: '25.00',
        currencyCode: 'EUR',
        fee: '0.00',
      }),
      uri: url.origin,
      chainId: TWO,
      nonce: 'k3Jd9XqPz2LmW8aTyB4nV7cE',
      issuedAt: new Date(now - 1_000).toISOString(),
      expirationTime: new Date(now + 600_000).toISOString(),
      requestId: 'quo_crafted0000000000',
      ...change,
    });
  };
  const sign = (page: Page, message: string, address = ACCOUNT.address) =>
    refusedWithoutWindow(extension, page, 'personal_sign', [utf8Hex(message), address]);

  before(async () => {
    sites = await startSites();
    stack = await startStack({
      env: {
        ...ONRAMP_ENV,
        KASSA_ALLOWED_ORIGINS: [SHOP_ORIGIN, sites.origin('shop.localhost'), sites.origin('evil.localhost')].join(','),
      },
      sandbox: { mintDelayMs: 0 },
    });
    extension = await launchExtension({ args: [HOST_RULES] });
    await configure(extension, stack.proxy.origin);
    await importVaultKey(extension, ACCOUNT, PASSWORD);
    shop = await openDapp(extension, `${origin('shop.localhost')}/`);
    await connectDapp(extension, shop);
    evil = await openDapp(extension, `${origin('evil.localhost')}/`);
    await connectDapp(extension, evil);
  });
  afterEach(async () => {
    for (const page of extension.context.pages())
      if (page.url().includes('/ui/approval.html')) await page.close().catch(() => undefined);
  });
  after(async () => {
    await extension?.dispose();
    await stack?.stop();
    await sites?.close();
  });

  it('the shop’s proof is shown in words, signed after approval with the vault key, and accepted by the proxy', async () => {
    const shopOrigin = origin('shop.localhost');
    const { quoteId, message } = await quote(shopOrigin);
    const opening = approvalWindow(extension);
    const signed = call(shop, 'personal_sign', [utf8Hex(message), ACCOUNT.address.toLowerCase()]);
    const approval = await opening;
    await approval.getByRole('heading', { name: 'Confirm this purchase?' }).waitFor();
    const host = new URL(shopOrigin).host;
    assert.equal(await shown(approval, '#proof-asks'), `${host} asks you to confirm a purchase:`);
    assert.equal(
      await shown(approval, '[data-field=purchase]'),
      `Buy 25 eEUR on Kassa Local Two for €25.00, delivered to ${ACCOUNT.address.slice(0, 6)}…${ACCOUNT.address.slice(-4)}.`,
    );
    assert.equal(await shown(approval, '#origin'), shopOrigin);
    assert.equal(await shown(approval, '[data-field=chain]'), 'Kassa Local Two (chain 31338)');
    assert.equal(await shown(approval, '[data-field=address]'), ACCOUNT.address);
    assert.match(await shown(approval, '[data-field=expires]'), /^at \d\d:\d\d (AM |PM )?\(in (10|9) minutes\)$/);
    assert.equal(await approval.locator('[data-field=message]').textContent(), message, 'the message as signed');
    await press(approval, 'Approve');
    const signature = (await signed).result as string;
    assert.match(signature, /^0x[0-9a-f]{130}$/, JSON.stringify(await signed));
    assert.equal(verifyMessage(message, signature), ACCOUNT.address, 'EIP-191, by the vault key');

    // The page hands it to the proxy, which verifies it and makes the purchase.
    const made = await shop.evaluate(
      async ({ proxy, body }) => {
        const response = await fetch(`${proxy}/api/onramp/purchases`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `proof-${body.quoteId}` },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as { purchase?: { wallet: string } } };
      },
      { proxy: stack.proxy.origin, body: { quoteId, signature } },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.purchase?.wallet, ACCOUNT.address);
  });

  it('the same message as text (not hex) is signed the same way; rejecting or closing answers 4001', async () => {
    const { message } = await quote(origin('shop.localhost'));
    let opening = approvalWindow(extension);
    let signed = call(shop, 'personal_sign', [message, ACCOUNT.address]);
    let approval = await opening;
    await press(approval, 'Reject');
    assert.equal((await signed).error?.code, 4001);
    opening = approvalWindow(extension);
    signed = call(shop, 'personal_sign', [message, ACCOUNT.address]);
    approval = await opening;
    await approval.locator('[data-field=purchase]').waitFor();
    await approval.close();
    assert.equal((await signed).error?.code, 4001);
    opening = approvalWindow(extension);
    signed = call(shop, 'personal_sign', [message, ACCOUNT.address]);
    await press(await opening, 'Approve');
    assert.equal(verifyMessage(message, (await signed).result as string), ACCOUNT.address);
  });

  it('a hostile page cannot have the shop’s genuine message signed: it is for another site (4100)', async () => {
    // The attacker's server asked the proxy as the shop would (a forged Origin header is easy outside a browser).
    const { message } = await quote(origin('shop.localhost'));
    const refused = await sign(evil, message);
    assert.equal(refused.code, 4100);
    const shopHost = new URL(origin('shop.localhost')).host;
    const evilHost = new URL(origin('evil.localhost')).host;
    assert.equal(
      refused.message,
      `This message is for ${shopHost}, not for ${evilHost}: Kassa signs a site's own messages only`,
    );
    // The same origin's host with another scheme is another site too.
    const https = await sign(shop, crafted(shop, { uri: `https://${shopHost}` }));
    assert.equal(https.code, 4100);
    // And a message the proxy wrote for the evil page is shown as evil's, never as the shop's.
    const own = await quote(origin('evil.localhost'));
    assert.equal(parseSiweMessage(own.message)?.domain, evilHost);
  });

  it('a message for another account, or asked for another account, is refused (4100)', async () => {
    const { message } = await quote(origin('shop.localhost'), { wallet: OTHER.address });
    const forOther = await sign(shop, message);
    assert.equal(forOther.code, 4100);
    assert.match(forOther.message, new RegExp(`names ${OTHER.address}, not the account Kassa connected`));
    const { message: mine } = await quote(origin('shop.localhost'));
    const askedForOther = await sign(shop, mine, OTHER.address);
    assert.equal(askedForOther.code, 4100);
    assert.equal(askedForOther.message, `${OTHER.address} is not the account Kassa connected to this site`);
    // The address must be written as EIP-55 asks.
    const lower = await sign(shop, crafted(shop, { address: ACCOUNT.address.toLowerCase() }));
    assert.equal(lower.code, 4100);
  });

  it('expired, or issued in the future beyond a small skew, is refused (-32602)', async () => {
    const past = Date.now() - 3_600_000;
    const expired = await sign(
      shop,
      crafted(shop, {
        issuedAt: new Date(past).toISOString(),
        expirationTime: new Date(past + 600_000).toISOString(),
      }),
    );
    assert.equal(expired.code, -32602);
    assert.equal(expired.message, `This message expired at ${new Date(past + 600_000).toISOString()}`);
    const future = Date.now() + 600_000;
    const early = await sign(
      shop,
      crafted(shop, {
        issuedAt: new Date(future).toISOString(),
        expirationTime: new Date(future + 600_000).toISOString(),
      }),
    );
    assert.equal(early.code, -32602);
    assert.match(early.message, /is issued at .+, which is still to come/);
  });

  it('anything appended, prepended or changed in its words is refused (4200), as is any other message', async () => {
    const { message } = await quote(origin('shop.localhost'));
    const kind = /^Kassa signs only the ownership proof of a Kassa purchase/;
    for (const text of [
      `${message}\n`,
      `${message} `,
      `${message}\nResources:\n- https://evil.example/drain`,
      `\n${message}`,
      message.replace('Buy 25 eEUR', 'Buy 25 eEUR and approve everything'),
      message.replace('wants you to sign in', 'wants you to log in'),
      'Hello from the shop',
      `0x${'00'.repeat(32)}`,
    ]) {
      const refused = await sign(shop, text);
      assert.equal(refused.code, 4200, JSON.stringify(text));
      assert.match(refused.message, kind);
    }
    // Bytes that are no UTF-8 text.
    const binary = await refusedWithoutWindow(extension, shop, 'personal_sign', ['0xc328ff', ACCOUNT.address]);
    assert.equal(binary.code, 4200);
    assert.match(binary.message, kind);
    const malformed = await refusedWithoutWindow(extension, shop, 'personal_sign', [message]);
    assert.equal(malformed.code, -32602);
  });

  it('a chain the proxy does not list, or a statement naming another chain than its Chain ID, is refused (4200)', async () => {
    const unlisted = await sign(shop, crafted(shop, { chainId: 999 }));
    assert.equal(unlisted.code, 4200);
    assert.equal(unlisted.message, "Chain 999 is not among the chains Kassa's proxy lists");
    const renamed = await sign(shop, crafted(shop, { chainId: 31337 }));
    assert.equal(renamed.code, 4200);
    assert.equal(renamed.message, 'This message names Kassa Local Two, but its Chain ID 31337 is Kassa Local One');
  });

  it('every other signing method stays refused before any window (4200), and a site not connected gets 4100', async () => {
    const typed = JSON.stringify({
      types: { EIP712Domain: [{ name: 'name', type: 'string' }] },
      primaryType: 'EIP712Domain',
      domain: { name: 'Kassa' },
      message: {},
    });
    for (const [method, params] of [
      ['eth_sign', [ACCOUNT.address, utf8Hex('hello')]],
      ['eth_signTypedData', [[{ type: 'string', name: 'a', value: 'b' }], ACCOUNT.address]],
      ['eth_signTypedData_v3', [ACCOUNT.address, typed]],
      ['eth_signTypedData_v4', [ACCOUNT.address, typed]],
      ['eth_signTransaction', [{ from: ACCOUNT.address }]],
    ] as const) {
      const refused = await refusedWithoutWindow(extension, shop, method, params);
      assert.equal(refused.code, 4200, method);
      assert.match(refused.message, new RegExp(`${method} is not supported`));
    }
    const stranger = await openDapp(extension, `${origin('stranger.localhost')}/`);
    const notConnected = await sign(stranger, crafted(stranger));
    assert.equal(notConnected.code, 4100);
    assert.match(notConnected.message, /not connected/);
    await stranger.close();
  });

  it('one proof per site at a time; one that expires while its window is open cannot be approved', async () => {
    const soon = Date.now() + 4_000;
    const message = crafted(shop, { expirationTime: new Date(soon).toISOString() });
    const opening = approvalWindow(extension);
    const signed = call(shop, 'personal_sign', [utf8Hex(message), ACCOUNT.address]);
    const approval = await opening;
    await approval.locator('[data-field=purchase]').waitFor();
    const second = await sign(shop, crafted(shop));
    assert.equal(second.code, -32002, 'a second request of the site waits for none');
    await approval
      .locator('[data-field=expired]', { hasText: 'This request has expired: go back to the site and buy again.' })
      .waitFor({ timeout: PATIENCE_MS });
    assert.equal(await approval.locator('#approve').isDisabled(), true);
    await press(approval, 'Reject');
    assert.equal((await signed).error?.code, 4001);
  });
});
