import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer } from '@openpaw/testing';
import { IngestionModule, SERVICE_NAME } from './app.module.js';
import { ingestionSettingsFromEnv } from './config.js';

process.env['LOG_LEVEL'] ??= 'warn';

it('boots the ingestion service from env: probes (database included), metrics and its durable commands consumer', async () => {
  const nats = await privateNatsServer();
  const blobDir = await mkdtemp(join(tmpdir(), 'openpaw-ingestion-boot-'));
  const settings = ingestionSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_BLOB_DIR: blobDir, OPENPAW_DATABASE_URL: await freshDatabase('ingestion_boot') });
  expect(settings.fetch.allowAddressClasses).toEqual([]);
  const { app, url } = await startService({ name: SERVICE_NAME, module: IngestionModule.forRoot(settings), defaultPort: 0, port: 0 });
  try {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', service: 'ingestion' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('database');
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('openpaw_messages_handled_total');
    const nc = await connect({ servers: nats.url });
    const consumer = await (await jetstreamManager(nc)).consumers.info(STREAMS.commands.name, 'svc-ingestion');
    await nc.close();
    expect(consumer.config.filter_subject).toBe('openpaw.cmd.ingestion.>');
  } finally {
    await app.close();
    await nats.dispose();
    await rm(blobDir, { recursive: true, force: true });
  }
});
