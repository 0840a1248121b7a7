/**
 * The end of a device session, in real Chromium: a revocation made by an admin through the API stops
 * the extension's open views without anything done in them (the worker learns it from the proxy's
 * live stream, which ends with `unauthorized`), on one proxy on SQLite and on a fleet whose other
 * instance made the revocation (Redis, PostgreSQL); a code denied on the approval page; and the
 * shared operator token of earlier versions, dropped from storage with a note to sign in.
 *
 * What is asserted is the order of events: the revocation answered, then the views saying "Signed
 * out" with no click, reload or call of the page's own. The time between the two is printed (the
 * proxy checks a stream's credential twice a second); it is a figure, not an assertion.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright';
import { FLEET_STORES, startFleet, type Fleet } from '../support/fleet.ts';
import { addOperator, as, type TestOperator } from '../support/operators.ts';
import { launchExtension, signIn, startSignIn, type LoadedExtension } from '../support/extension.ts';
import { startStack, type Stack } from '../support/stack.ts';

/** The operator views open in `extension`, each waiting on its list. */
async function openViews(extension: LoadedExtension): Promise<Page[]> {
  const payments = await extension.openPage('ui/popup.html?tab=payments');
  await payments.getByText('Live', { exact: true }).waitFor();
  const orders = await extension.openPage('ui/sidepanel.html?tab=orders');
  await orders.getByRole('table', { name: 'Orders' }).or(orders.getByText('No orders.')).waitFor();
  return [payments, orders];
}

/** Revokes, then waits for every view to say it is signed out; the time it took, for the log. */
async function revokedWhileOpen(views: Page[], revoke: () => Promise<void>, what: string): Promise<void> {
  await revoke();
  const revokedAt = Date.now();
  await Promise.all(
    views.map((view) =>
      view.locator('#signed-out [role=alert]').filter({ hasText: 'Signed out: sign in again.' }).waitFor(),
    ),
  );
  process.stdout.write(`${what}: the views said "signed out" ${Date.now() - revokedAt} ms after the revocation\n`);
}

const deviceCredential = async (call: ReturnType<typeof as>, person: TestOperator) => {
  const sessions = await call(`/api/operators/${person.operatorId}/sessions`);
  return (sessions.body.credentials as Array<{ credentialId: string; kind: string; live: boolean }>).find(
    (credential) => credential.kind === 'device' && credential.live,
  )!.credentialId;
};

describe('extension: a revoked device stops the views at once (SQLite)', () => {
  let stack: Stack;
  let person: TestOperator;
  let extension: LoadedExtension;

  before(async () => {
    stack = await startStack();
    person = await stack.addOperator('support', 'Sam Support');
    extension = await launchExtension();
  });
  after(async () => {
    await extension?.dispose();
    await stack?.stop();
  });

  it('an admin revokes the device through the API: every open view says so, the token is forgotten', async () => {
    await signIn(extension, stack.proxy.origin, person);
    const views = await openViews(extension);
    const credentialId = await deviceCredential(stack.operator, person);
    const callsBefore = extension.requests.length;
    await revokedWhileOpen(
      views,
      async () => {
        const revoked = await stack.operator(`/api/credentials/${credentialId}`, { method: 'DELETE' });
        assert.equal(revoked.status, 204);
      },
      'SQLite',
    );
    // Learned from the stream: no list was read again to find out.
    const lists = extension.requests
      .slice(callsBefore)
      .filter((request) => /\/api\/(payments|orders)(\?|$)/.test(request.url));
    assert.deepEqual(lists, []);
    assert.equal((await extension.storage())['kassa.operatorSession'], undefined);
    const settings = await extension.openPage('ui/popup.html?tab=settings');
    await settings
      .locator('#session-notice')
      .filter({ hasText: 'Signed out: sign in again. The proxy no longer accepts this device' })
      .waitFor();
    await settings.getByRole('button', { name: 'Sign in' }).waitFor();
    await Promise.all([...views, settings].map((page) => page.close()));
  });

  it('a suspended person: the views stop the same way', async () => {
    await signIn(extension, stack.proxy.origin, person);
    const views = await openViews(extension);
    await revokedWhileOpen(
      views,
      async () => {
        await stack.operator(`/api/operators/${person.operatorId}`, { method: 'PATCH', body: { state: 'suspended' } });
      },
      'SQLite, suspended',
    );
    await stack.operator(`/api/operators/${person.operatorId}`, { method: 'PATCH', body: { state: 'active' } });
    await Promise.all(views.map((page) => page.close()));
  });

  it('a code denied on the approval page: the sign-in stops and says so', async () => {
    const { page, userCode } = await startSignIn(extension);
    const denied = await as(stack.proxy.origin, person)('/operator/device/approve', {
      body: { user_code: userCode, approve: false },
    });
    assert.equal(denied.body.state, 'denied');
    await page.locator('#session-notice').filter({ hasText: 'The sign-in was denied on the approval page.' }).waitFor();
    assert.equal(await page.locator('#user-code').count(), 0);
    await page.close();
  });

  it('an operator token saved by an earlier version is dropped, with a note to sign in', async () => {
    await extension.worker.evaluate(
      (proxyUrl) =>
        chrome.storage.local.set({
          'kassa.settings': {
            proxyUrl,
            operatorToken: 'op_shared_token_of_an_earlier_version',
            tokenProxyUrl: proxyUrl,
            network: 'test',
          },
        }),
      stack.proxy.origin,
    );
    const page = await extension.openPage('ui/popup.html?tab=settings');
    await page
      .locator('#session-notice')
      .filter({ hasText: 'Kassa no longer uses a shared operator token: the one saved here was removed.' })
      .waitFor();
    assert.deepEqual((await extension.storage())['kassa.settings'], {
      proxyUrl: stack.proxy.origin,
      network: 'test',
    });
    await page.close();
  });
});

for (const { store, name } of FLEET_STORES)
  describe(`extension: a device revoked on another instance of a fleet stops the views at once (${name})`, () => {
    let fleet: Fleet;
    let person: TestOperator;
    let extension: LoadedExtension;

    before(async () => {
      fleet = await startFleet({ instances: 2, store });
      person = await addOperator({ services: fleet.at(0).services! }, 'finance', 'Fleet Finance');
      extension = await launchExtension();
    });
    after(async () => {
      await extension?.dispose();
      await fleet?.stop();
    });

    it('signed in through instance 0, revoked through instance 1: the views say so', async () => {
      await signIn(extension, fleet.origin(0), person);
      const views = await openViews(extension);
      const credentialId = await deviceCredential(as(fleet.origin(1), fleet.admin), person);
      await revokedWhileOpen(
        views,
        async () => {
          const revoked = await fleet.operator(1, `/api/credentials/${credentialId}`, { method: 'DELETE' });
          assert.equal(revoked.status, 204);
        },
        name,
      );
      await Promise.all(views.map((page) => page.close()));
    });
  });
