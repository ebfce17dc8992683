import { DEFAULT_WORKFLOW_CONFIG } from './workflows/index.js';
import { startService } from '@openpaw/platform';
import { SagaRegistry } from '@openpaw/saga';
import { freshDatabase, privateNatsServer } from '@openpaw/testing';
import { threeStepSaga } from '@openpaw/testkit';
import { CoordinatorModule, SERVICE_NAME } from './app.module.js';

describe('coordinator service', () => {
  it('boots with probes and metrics, and shuts down cleanly', async () => {
    const nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('coordinator_app');
    const service = await startService({
      name: SERVICE_NAME,
      module: CoordinatorModule.forRoot(
        { natsUrl: [nats.url], databaseUrl, maxBatch: 64, concurrency: 1, timerIntervalMs: 100, timerIdleMs: 1_000, poolSize: 4, publishRunStateChangedV1: false, workflows: DEFAULT_WORKFLOW_CONFIG },
        new SagaRegistry([threeStepSaga]),
      ),
      defaultPort: 0,
      port: 0,
    });
    try {
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.text()).toContain('coordinator');
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toContain('openpaw_saga_transitions_total');
    } finally {
      await service.app.close();
      await nats.dispose();
    }
  });
});
