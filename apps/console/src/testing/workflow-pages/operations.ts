import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { ExecuteResearchLeg } from '@openpaw/contracts';
import { waitFor } from '@openpaw/testing';
import { screenshot, seriousAccessibilityViolations } from '../browser.js';
import { adminPage, type WorkflowWorld } from '../workflow-platform.js';

/** The operators' pages: the lanes and a real dead letter (redacted), redrives (one, then by filter) with the audit log, and the runs of another user for an admin. Registered by `console-workflows.e2e.spec.ts`, in its one world (`startWorkflowWorld`). */
export function operationsPages(world: WorkflowWorld): void {
  it('operations: refused without the admin role; with it, the lanes and a dead letter the research service really dead-lettered, its payload redacted', async () => {
    const { nats, page } = world;
    // A command the research service cannot parse: its lane dead-letters it with the reason.
    const nc = await connect({ servers: nats.url, name: 'console-e2e-dead-letter' });
    try {
      await jetstream(nc).publish(ExecuteResearchLeg.subject, JSON.stringify({ specversion: '1.0', id: 'console-e2e-bad-1', prompt: 'Jane Doe private question' }), { msgID: 'console-e2e-bad-1' });
    } finally {
      await nc.close();
    }

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operations' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/admin.*\(403\)/);

    const { page: opsPage, close: closeOperator } = await adminPage(world, '#/ops');
    await opsPage.getByRole('heading', { name: 'Lanes' }).waitFor();
    expect(await opsPage.locator('tr[data-lane]').count()).toBeGreaterThan(0);
    const letter = opsPage.locator('[data-dead-letter]').filter({ hasText: ExecuteResearchLeg.subject });
    await letter.first().waitFor({ timeout: 60_000 });
    expect(await letter.first().locator('[data-column=reason]').textContent()).not.toBe('not recorded');
    expect(await opsPage.locator('main').textContent()).not.toContain('Jane Doe');
    expect(await seriousAccessibilityViolations(opsPage)).toEqual([]);
    await screenshot(opsPage, 'w7-operations');
    await closeOperator();
  });

  it('redrive a dead letter: one goes back to its lane (which dead-letters it again), then by filter after the dry-run count; both in the audit log', async () => {
    const { nats } = world;
    const nc = await connect({ servers: nats.url, name: 'console-e2e-redrive' });
    try {
      await jetstream(nc).publish(ExecuteResearchLeg.subject, JSON.stringify({ specversion: '1.0', id: 'console-e2e-bad-2', prompt: 'unparseable' }), { msgID: 'console-e2e-bad-2' });
    } finally {
      await nc.close();
    }
    const { page: opsPage, close: closeOperator } = await adminPage(world, '#/ops');
    const letters = opsPage.locator('[data-dead-letter]').filter({ hasText: ExecuteResearchLeg.subject });
    // Its id is kept by the redaction: wait for this one (the operations test's may be listed too).
    await letters.filter({ hasText: 'console-e2e-bad-2' }).waitFor({ timeout: 60_000 });
    const before = await letters.count();
    const seqs = async (): Promise<number[]> => (await Promise.all((await letters.all()).map((item) => item.getAttribute('data-dead-letter')))).map(Number);
    const [redriven] = await seqs();
    if (redriven === undefined) throw new Error('no dead letter to redrive');

    await opsPage.getByRole('button', { name: `Redrive dead letter ${redriven}` }).click();
    await opsPage.getByText(`Dead letter ${redriven} redriven to ${ExecuteResearchLeg.subject}.`).waitFor();
    // Back on the research lane, still unparseable: dead-lettered again under a new sequence.
    await waitFor(async () => {
      const now = await seqs();
      return !now.includes(redriven) && now.length === before && Math.max(...now) > redriven ? true : undefined;
    }, 'the redriven message dead-lettered again by the research lane', 60_000);

    await opsPage.getByLabel('Original subject (wildcards * and > allowed)').fill('openpaw.cmd.research.>');
    await opsPage.getByLabel('Reason contains').fill((await letters.first().locator('[data-column=reason]').textContent())?.slice(0, 12) ?? '');
    await opsPage.getByRole('button', { name: 'Count matches' }).click();
    const count = opsPage.locator('[data-dry-run-count]');
    await count.waitFor();
    expect(await count.getAttribute('data-dry-run-count')).toBe(String(before));
    expect(await seqs()).toHaveLength(before); // the dry run moved nothing
    expect(await seriousAccessibilityViolations(opsPage)).toEqual([]);
    await screenshot(opsPage, 'w8-redrive-dry-run');
    await opsPage.getByRole('button', { name: `Redrive ${before}` }).click();
    await opsPage.getByText(`Redrove ${before} of ${before} matching dead letters.`).waitFor();
    // The audit log names the operator and both actions, newest first.
    const newestAudit = opsPage.locator('tr[data-audit-entry]').first();
    await newestAudit.filter({ hasText: 'Redrove by filter' }).waitFor();
    expect(await newestAudit.locator('[data-column=actor]').textContent()).toBe('console-olga');
    expect(await newestAudit.locator('[data-column=affected]').textContent()).toBe(String(before));
    expect(await opsPage.locator('tr[data-audit-entry]').filter({ hasText: 'Redrove one dead letter' }).filter({ hasText: `seq: ${redriven}` }).count()).toBe(1);
    expect(await seriousAccessibilityViolations(opsPage)).toEqual([]);
    await screenshot(opsPage, 'w9-audit-log');
    await closeOperator();
  });

  it("runs: an admin filters by user (another user's runs, then everyone's); a user without the role has no user filter", async () => {
    const { page } = world;
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).count()).toBe(1);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    expect(await page.getByLabel(/^User/).count()).toBe(0);

    const { page: opsPage, close: closeOperator } = await adminPage(world, '#/runs');
    await opsPage.getByRole('status').filter({ hasText: '0 runs shown.' }).waitFor();
    await opsPage.getByLabel('User (admins; * for everyone)', { exact: true }).fill('console-rosa');
    await opsPage.getByRole('button', { name: 'Apply filters' }).click();
    await opsPage.waitForURL(/[?&]user=console-rosa/);
    await opsPage.locator('table.runs caption').filter({ hasText: 'Runs of console-rosa' }).waitFor();
    const rosas = await opsPage.locator('table.runs tbody tr').count();
    expect(rosas).toBeGreaterThan(0);
    await opsPage.getByLabel('User (admins; * for everyone)', { exact: true }).fill('nobody-at-all');
    await opsPage.getByRole('button', { name: 'Apply filters' }).click();
    await opsPage.getByRole('status').filter({ hasText: '0 runs shown.' }).waitFor();
    await opsPage.getByLabel('User (admins; * for everyone)', { exact: true }).fill('*');
    await opsPage.getByRole('button', { name: 'Apply filters' }).click();
    await opsPage.locator('table.runs caption').filter({ hasText: "Everyone's runs" }).waitFor();
    expect(await opsPage.locator('table.runs tbody tr').count()).toBeGreaterThanOrEqual(rosas);
    expect(await seriousAccessibilityViolations(opsPage)).toEqual([]);
    await screenshot(opsPage, 'w8-runs-admin-user-filter');
    await closeOperator();
  });
}
