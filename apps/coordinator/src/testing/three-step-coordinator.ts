import { SagaRegistry } from '@openpaw/saga';
import { threeStepSaga } from '@openpaw/testkit';
import { CoordinatorRuntime } from '../runtime/coordinator-runtime.js';

/**
 * A coordinator process running only the synthetic three-step saga: the crash/restart test kills it
 * with SIGKILL, and the saga benchmark drives it. Config from env: NATS_URL, DATABASE_URL (and the
 * coordinator's OPENPAW_COORDINATOR_CONCURRENCY / OPENPAW_COORDINATOR_MAX_BATCH when set).
 */
async function main(): Promise<void> {
  const natsUrl = process.env['NATS_URL'];
  const databaseUrl = process.env['DATABASE_URL'];
  if (natsUrl === undefined || databaseUrl === undefined) throw new Error('NATS_URL and DATABASE_URL are required');
  const logger = {
    info: () => undefined,
    warn: (obj: object, msg: string) => console.warn(JSON.stringify({ level: 'warn', ...obj, msg })),
    error: (obj: object, msg: string) => console.error(JSON.stringify({ level: 'error', ...obj, msg })),
  };
  const runtime = await CoordinatorRuntime.start({
    natsUrl,
    databaseUrl,
    registry: new SagaRegistry([threeStepSaga]),
    logger,
    timerIntervalMs: Number(process.env['TIMER_INTERVAL_MS'] ?? 50),
    relaySweepIntervalMs: Number(process.env['RELAY_SWEEP_INTERVAL_MS'] ?? 200),
    ackWaitMs: Number(process.env['ACK_WAIT_MS'] ?? 5_000),
    // The service's own settings, so a bench can try the coordinator as it would be configured.
    ...(process.env['OPENPAW_COORDINATOR_CONCURRENCY'] === undefined ? {} : { concurrency: Number(process.env['OPENPAW_COORDINATOR_CONCURRENCY']) }),
    ...(process.env['OPENPAW_COORDINATOR_MAX_BATCH'] === undefined ? {} : { maxBatch: Number(process.env['OPENPAW_COORDINATOR_MAX_BATCH']) }),
  });
  console.log('coordinator ready');
  const shutdown = (): void => {
    void runtime.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
