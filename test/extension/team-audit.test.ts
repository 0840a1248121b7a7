/**
 * The admins' views, in real Chromium against a real proxy: the Team view (invite, the invitation
 * link shown once; another role; suspend and reactivate; a person's sessions and devices, revoked;
 * remove; the proxy's refusal to leave the shop without an admin, in its words) and the Audit view
 * (the trail with who did what, filtered by person and action, one record's detail, exported), each
 * change made there found in the trail. For a viewer, neither tab exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright';
import { launchExtension, signIn, type LoadedExtension } from '../support/extension.ts';
import { deviceToken, type TestOperator } from '../support/operators.ts';
import { startStack, type Stack } from '../support/stack.ts';

describe('extension: the Team and Audit views for admins', () => {
  let stack: Stack;
  let extension: LoadedExtension;
  let colleague: TestOperator;
  let team: Page;
  const row = (name: string) => team.locator('tr[data-operator]', { hasText: name });

  before(async () => {
    stack = await startStack();
    colleague = await stack.addOperator('support', 'Cleo Colleague');
    // Cleo's own extension, signed in by device: a session the admin will see and revoke.
    await deviceToken(stack.proxy.origin, colleague, 'Kassa extension on Cleo’s laptop');
    extension = await launchExtension();
    await signIn(extension, stack.proxy.origin, stack.admin);
    team = await extension.openPage('ui/popup.html?tab=team');
    await row('Cleo Colleague').waitFor();
  });
  after(async () => {
    await team?.close();
    await extension?.dispose();
    await stack?.stop();
  });

  it('invites a person: the link is shown once, and the person is listed as invited', async () => {
    await team.getByText('Invite a person').click();
    const form = team.getByRole('form', { name: 'Invite a person' });
    await form.getByRole('button', { name: 'Invite' }).click();
    await team.locator('#name-problem').filter({ hasText: 'Enter the person’s name.' }).waitFor();
    await form.getByLabel('Name').fill('Lin Newcomer');
    await form.getByLabel('E-mail').fill('Lin@Shop.test');
    await form.getByLabel('Role').selectOption('finance');
    await form.getByRole('button', { name: 'Invite' }).click();
    const invitation = team.getByRole('region', { name: 'Invitation link for Lin Newcomer' });
    const link = await invitation.getByRole('textbox').inputValue();
    assert.match(link, new RegExp(`^${stack.proxy.origin}/operator/invite#[A-Za-z0-9_-]{40,}$`));
    await row('Lin Newcomer').filter({ hasText: 'Invited' }).waitFor();
    assert.match((await row('Lin Newcomer').textContent()) ?? '', /lin@shop\.test.*Finance/s);
    // Shown once: the list, read again, has no link.
    await team.getByRole('button', { name: 'Refresh' }).click();
    const listed = (await stack.operator('/api/operators')).text;
    assert.ok(!listed.includes(link.split('#')[1]!), 'the proxy never shows the link again');
  });

  it('changes a role, suspends and reactivates, and revokes a device', async () => {
    await row('Cleo Colleague').getByRole('button', { name: 'Operator Cleo Colleague' }).click();
    const pane = team.getByRole('region', { name: 'Operator Cleo Colleague' });
    await pane.getByRole('form', { name: 'Save role' }).getByLabel('Role').selectOption('finance');
    await pane.getByRole('button', { name: 'Save role' }).click();
    await pane.getByRole('status').filter({ hasText: 'Cleo Colleague is now Finance.' }).waitFor();
    await row('Cleo Colleague').filter({ hasText: 'Finance' }).waitFor();

    await pane.getByRole('button', { name: 'Suspend' }).click();
    await pane.getByRole('status').filter({ hasText: 'Cleo Colleague is suspended' }).waitFor();
    assert.equal((await stack.operator('/api/operator/me', { headers: colleague.headers })).status, 401);
    await pane.getByRole('button', { name: 'Reactivate' }).click();
    await pane.getByRole('status').filter({ hasText: 'Cleo Colleague is active again.' }).waitFor();

    const device = pane.locator('li[data-credential]', { hasText: 'Kassa extension on Cleo’s laptop' });
    await device.getByRole('button', { name: 'Revoke Kassa extension on Cleo’s laptop' }).click();
    await pane.getByRole('status').filter({ hasText: 'Kassa extension on Cleo’s laptop revoked.' }).waitFor();
    await device.filter({ hasText: '(ended)' }).waitFor();
  });

  it('the proxy’s refusal to remove the last admin is shown in its words; a person is removed after a confirmation', async () => {
    await row(stack.admin.name)
      .getByRole('button', { name: `Operator ${stack.admin.name}` })
      .click();
    const me = team.getByRole('region', { name: `Operator ${stack.admin.name}` });
    await me.getByRole('button', { name: 'Remove' }).click();
    await me.getByRole('button', { name: 'Confirm' }).click();
    await me.locator('#member-error').waitFor();
    assert.match((await me.locator('#member-error').textContent()) ?? '', /admin/i);

    await row('Lin Newcomer').getByRole('button', { name: 'Operator Lin Newcomer' }).click();
    const lin = team.getByRole('region', { name: 'Operator Lin Newcomer' });
    await lin.getByRole('button', { name: 'Remove' }).click();
    await lin.getByText('Remove Lin Newcomer? Their account, sign-ins and tokens go').waitFor();
    await lin.getByRole('button', { name: 'Confirm' }).click();
    await team.getByRole('status').filter({ hasText: 'Lin Newcomer was removed.' }).waitFor();
    await row('Lin Newcomer').waitFor({ state: 'detached' });
  });

  it('the audit trail names who did what; filtered, one record opened, exported', async () => {
    const audit = await extension.openPage('ui/popup.html?tab=audit');
    const records = audit.getByRole('table', { name: 'Audit trail' }).locator('tbody tr');
    await records.first().waitFor();
    const text = (await audit.getByRole('table', { name: 'Audit trail' }).textContent()) ?? '';
    for (const action of [
      'operator.invited',
      'operator.role_changed',
      'operator.suspended',
      'session.revoked',
      'operator.removed',
    ])
      assert.ok(text.includes(action), `${action} is in the trail`);

    const filters = audit.getByRole('form', { name: 'Filter the audit trail' });
    await filters.getByLabel('Person').selectOption({ label: stack.admin.name });
    await filters.getByLabel('Action').selectOption('operator');
    await filters.getByRole('button', { name: 'Apply' }).click();
    // Both device approvals (the admin's and Cleo's) leave the list once the filter applies.
    await records.filter({ hasText: 'device.approved' }).first().waitFor({ state: 'detached' });
    const actions = await records.locator('td:nth-child(3) button').allTextContents();
    assert.ok(actions.length > 0);
    for (const action of actions) assert.match(action.trim(), /^operator\./);
    const asked = extension.requests.filter((request) => request.url.includes('/api/audit?'));
    assert.match(asked.at(-1)!.url, new RegExp(`operatorId=${stack.admin.operatorId}.*action=operator`));

    await records.filter({ hasText: 'operator.role_changed' }).getByRole('button').click();
    const detail = audit.getByRole('region', { name: /^Record \d+: operator\.role_changed$/ });
    assert.match(
      (await detail.textContent()) ?? '',
      new RegExp(`Who\\s*${stack.admin.name} \\(Admin\\).*Through\\s*the extension`, 's'),
    );
    await detail.getByRole('region', { name: 'After' }).waitFor();

    const download = audit.waitForEvent('download');
    await audit.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    assert.match(file.suggestedFilename(), /^kassa-audit-.*\.csv$/);
    await audit
      .getByRole('status')
      .filter({ hasText: /kassa-audit-.*\.csv downloaded\./ })
      .waitFor();
    await audit.close();
  });

  it('a viewer has neither tab, and opening one by its address says what is missing', async () => {
    const viewer = await stack.addOperator('viewer', 'Vera Viewer');
    await signIn(extension, stack.proxy.origin, viewer);
    const page = await extension.openPage('ui/popup.html?tab=team');
    await page
      .getByRole('alert')
      .filter({ hasText: 'it needs the permission “manage the team (operators:manage)”' })
      .waitFor();
    assert.equal(await page.getByRole('tab', { name: 'Team' }).count(), 0);
    assert.equal(await page.getByRole('tab', { name: 'Audit' }).count(), 0);
    await page.close();
  });
});
