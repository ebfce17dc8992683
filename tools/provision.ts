/**
 * Provisions what the platform needs before services start: the JetStream streams (idempotent; this
 * is the streams' one owner, services only create a missing stream) and the database. Each service applies its own schema's migrations when it starts (in Kubernetes: the
 * migration Job runs the same). Env: OPENPAW_NATS_URL, OPENPAW_DATABASE_URL.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, provisionStreams, streamProvisionFromEnv } from '@openpaw/messaging';
import pg from 'pg';
import { partnersFromEnv, provisionPartnerConsumers } from '../deploy/src/partner-access.js';

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) await client.query(`create database "${name.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  console.log(`provision: database ${name} ready`);
}

async function main(): Promise<void> {
  const natsUrl = process.env['OPENPAW_NATS_URL'] ?? 'nats://127.0.0.1:4222';
  const databaseUrl = process.env['OPENPAW_DATABASE_URL'] ?? 'postgres://openpaw@127.0.0.1:5432/openpaw';
  // In a cluster the database exists and the Job's role may not create one (OPENPAW_PROVISION_DATABASE=false).
  if (process.env['OPENPAW_PROVISION_DATABASE'] !== 'false') await ensureDatabase(databaseUrl);
  const nc = await connectNats({ servers: natsUrl, name: 'provision' });
  // The one owner of the streams: reconciles limits and subjects to the configuration, raises
  // replicas, never lowers them (OPENPAW_STREAMS_PROVISION=off leaves the streams to ops entirely).
  const jsm = await jetstreamManager(nc);
  const reports = await provisionStreams(jsm, streamProvisionFromEnv(process.env, 'reconcile'));
  for (const [stream, report] of Object.entries(reports)) {
    console.log(`provision: stream ${stream} ${report.result}${report.drift.length === 0 ? '' : ` (left as is: ${report.drift.join('; ')})`}`);
  }
  // Partners' pull consumers on OPENPAW_EVENTS (ADR 0019): what the accounts config exports to them.
  const partnerConsumers = await provisionPartnerConsumers(jsm, partnersFromEnv(process.env));
  if (partnerConsumers.length > 0) console.log(`provision: partner consumers ${partnerConsumers.join(', ')}`);
  await nc.drain();
}

main().catch((error: unknown) => {
  console.error('provision failed:', error);
  process.exit(1);
});
