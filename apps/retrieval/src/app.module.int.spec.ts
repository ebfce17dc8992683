import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer } from '@openpaw/testing';
import { RetrievalModule, SERVICE_NAME } from './app.module.js';
import { retrievalSettingsFromEnv } from './config.js';

process.env['LOG_LEVEL'] ??= 'warn';

it('boots the retrieval service from env: probes (database included), metrics and its durable commands consumer', async () => {
  const nats = await privateNatsServer();
  const settings = retrievalSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: await freshDatabase('retrieval_boot') });
  expect(settings.vectors).toEqual({ backend: 'embedded' });
  const { app, url } = await startService({ name: SERVICE_NAME, module: RetrievalModule.forRoot(settings), defaultPort: 0, port: 0 });
  try {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', service: 'retrieval' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('database');
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('openpaw_messages_handled_total');
    const nc = await connect({ servers: nats.url });
    const consumer = await (await jetstreamManager(nc)).consumers.info(STREAMS.commands.name, 'svc-retrieval');
    await nc.close();
    expect(consumer.config.filter_subject).toBe('openpaw.cmd.retrieval.>');
  } finally {
    await app.close();
    await nats.dispose();
  }
});
