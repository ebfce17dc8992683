import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer } from '@openpaw/testing';
import { ArtifactsModule, SERVICE_NAME } from './app.module.js';
import { artifactsSettingsFromEnv } from './config.js';

process.env['LOG_LEVEL'] ??= 'warn';

it('boots the artifacts service: probes (database and NATS), metrics and its durable commands consumer', async () => {
  const nats = await privateNatsServer();
  const settings = artifactsSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: await freshDatabase('artifacts_boot') });
  const { app, url } = await startService({ name: SERVICE_NAME, module: ArtifactsModule.forRoot(settings), defaultPort: 0, port: 0 });
  try {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', service: 'artifacts' });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('openpaw_messages_handled_total');
    const nc = await connect({ servers: nats.url });
    const consumer = await (await jetstreamManager(nc)).consumers.info(STREAMS.commands.name, 'svc-artifacts');
    await nc.close();
    expect(consumer.config.filter_subject).toBe('openpaw.cmd.artifacts.>');
  } finally {
    await app.close();
    await nats.dispose();
  }
});
