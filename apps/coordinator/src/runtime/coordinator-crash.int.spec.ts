import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { deterministicUuid, runIdFor, StartRun } from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { coordinatorEntities, coordinatorMigrations, loadRunWithLogs, replayRun } from '@openpaw/saga';
import { freshDatabase, type ManagedProcess, privateNatsServer, spawnManaged, waitForOutput } from '@openpaw/testing';
import { startThreeStepWorker, threeStepSaga } from '@openpaw/testkit';

const root = join(import.meta.dirname, '../../../..');
const entry = join(root, 'dist/apps/coordinator/src/testing/three-step-coordinator.js');

async function startCoordinatorProcess(env: Record<string, string>): Promise<ManagedProcess> {
  const proc = spawnManaged(process.execPath, [entry], { env: { ...process.env, ...env } });
  await waitForOutput(proc, 'coordinator ready');
  return proc;
}

describe('coordinator crash and restart', () => {
  beforeAll(() => {
    // The coordinator runs as its own process (so it can be SIGKILLed): it needs the compiled build.
    if (!existsSync(entry)) execFileSync(process.execPath, [join(root, 'tools/build.mjs')], { stdio: 'inherit' });
  });

  it('finishes every run after a SIGKILL between steps, with no duplicated effect or transition', async () => {
    const nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('coordinator_crash');
    const env = { NATS_URL: nats.url, DATABASE_URL: databaseUrl, ACK_WAIT_MS: '1000' };
    let coordinator = await startCoordinatorProcess(env);
    const nc = await connect({ servers: nats.url });
    const js = jetstream(nc);
    const worker = await startThreeStepWorker(nc, js);
    const publisher = new JetStreamPublisher(js);
    const dataSource = await openDatabase({ url: databaseUrl, schema: 'coordinator', entities: coordinatorEntities, migrations: coordinatorMigrations });
    try {
      const runIds: string[] = [];
      for (let i = 0; i < 60; i += 1) {
        const key = `crash-${i}`;
        const runId = runIdFor(threeStepSaga.type, key);
        runIds.push(runId);
        await publisher.publish(StartRun, { runId, workflowType: threeStepSaga.type, idempotencyKey: key, userId: 'u1', input: { payload: key } }, {
          id: deterministicUuid('start', key),
          source: '/test',
          correlationId: runId,
        });
      }
      // Kill it mid-flight: some runs finished, others between steps.
      const progressed = async () =>
        (await dataSource.query<[{ n: number }]>(`select count(*)::int as n from workflow_step_logs where step_name like 'openpaw.evt.%'`))[0].n;
      while ((await progressed()) < 20) await new Promise((r) => setTimeout(r, 5));
      await coordinator.stop('SIGKILL');
      const finishedBeforeCrash = (await dataSource.query<[{ n: number }]>(`select count(*)::int as n from workflow_runs where state = 'SUCCEEDED'`))[0].n;
      expect(finishedBeforeCrash).toBeLessThan(runIds.length);

      coordinator = await startCoordinatorProcess(env);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const rows = await dataSource.query<Array<{ state: string; n: number }>>(`select state, count(*)::int as n from workflow_runs group by state`);
        if (rows.length === 1 && rows[0]?.state === 'SUCCEEDED' && rows[0].n === runIds.length) break;
        if (Date.now() > deadline) throw new Error(`runs did not all finish: ${JSON.stringify(rows)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // One effect per command, three commands per run.
      expect(worker.effects.size).toBe(runIds.length * 3);
      expect([...worker.effects.values()].every((n) => n === 1)).toBe(true);
      for (const runId of runIds) {
        const loaded = await loadRunWithLogs(dataSource, runId);
        if (loaded === undefined) throw new Error(`run ${runId} missing`);
        const transitions = loaded.logs.filter((l) => l.stateBefore !== l.stateAfter).map((l) => `${l.stateBefore}->${l.stateAfter}`);
        expect(transitions).toEqual(['null->INITIATED', 'INITIATED->STEP_1', 'STEP_1->STEP_2', 'STEP_2->STEP_3', 'STEP_3->SUCCEEDED']);
        expect(replayRun(threeStepSaga, loaded.run, loaded.logs).ok).toBe(true);
      }
    } finally {
      await worker.stop();
      await coordinator.stop();
      await dataSource.destroy();
      await nc.close();
      await nats.dispose();
    }
  });
});
