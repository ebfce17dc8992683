import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDatabase,
  findFreePort,
  type NatsServerHandle,
  type OtlpReceiver,
  type PostgresServerHandle,
  startNatsServer,
  startOtlpReceiver,
  startPostgresServer,
} from '@openpaw/testing';
import pg from 'pg';
import { GatewayClient } from '../apps/gateway/src/e2e/e2e-client.js';
import { FakeQdrant } from '../apps/retrieval/src/testing/fake-qdrant.js';
import { bootPathEnv, describeSubstitutions, imageDefaultsOf, localPortsOf, localProcessOf, type SubstitutionMap } from '../deploy/src/testing/boot-plan.js';
import { BootedProcesses } from '../deploy/src/testing/boot-run.js';
import { composeContainers } from '../deploy/src/testing/compose-containers.js';
import { SEPARATE_LANES, SERVICES } from '../deploy/src/topology.js';
import { type FakeGcsServer, startFakeGcsServer } from '../libs/providers/src/test-support/fake-gcs-server.js';

/**
 * docker-compose.yml's services as far as no Docker engine is needed (deploy/README.md, "The boot
 * test"): every service built from this repository runs with its compose command and environment,
 * as the image's user, in its own mount namespace (compose sets no read-only root); the images it
 * pulls are replaced by local equivalents (printed). `provision` runs first and must exit 0, then
 * every service until its healthcheck's URL answers; one text problem is solved through the gateway
 * (retrieval on the Qdrant stand-in, the solution page in the GCS stand-in). The smaller case: the
 * workflows are exercised by the manifests' boot test.
 */
const root = join(import.meta.dirname, '..');
/** The node image's `node` user (the Dockerfile's `USER node`). */
const NODE_USER_UID = 1000;

describe('docker-compose.yml booted without a Docker engine', () => {
  let nats: NatsServerHandle;
  let postgres: PostgresServerHandle;
  let otlp: OtlpReceiver;
  let gcs: FakeGcsServer;
  const qdrant = new FakeQdrant();
  let scratch: string;
  let boot: BootedProcesses;
  let gatewayUrl: string;
  let services: string[];

  beforeAll(async () => {
    let qdrantUrl: string;
    [nats, postgres, otlp, gcs, qdrantUrl] = await Promise.all([startNatsServer(), startPostgresServer({ fsync: false }), startOtlpReceiver(), startFakeGcsServer(), qdrant.start()]);
    // The postgres image's POSTGRES_USER/POSTGRES_DB: the role is the test server's, the database is created.
    await createDatabase(postgres.adminUrl, 'openpaw');
    scratch = mkdtempSync(join(tmpdir(), 'openpaw-compose-boot-'));
    const image = imageDefaultsOf(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    const compose = composeContainers(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), {}, NODE_USER_UID);
    const ports = await localPortsOf(compose.ours, findFreePort);
    const local = { nats: new URL(nats.url).host, postgres: `127.0.0.1:${postgres.port}`, qdrant: new URL(qdrantUrl).host, gcs: new URL(gcs.url).host, 'otel-collector': new URL(otlp.endpoint).host };
    const standIns: Record<string, { port: number; what: string }> = {
      nats: { port: 4222, what: 'nats-server of libs/testing' },
      postgres: { port: 5432, what: 'PostgreSQL of libs/testing' },
      qdrant: { port: 6333, what: "the Qdrant REST stand-in of apps/retrieval's specs" },
      gcs: { port: 4443, what: 'the GCS JSON API server of libs/providers specs' },
      'otel-collector': { port: 4318, what: 'the OTLP receiver of libs/testing' },
    };
    for (const name of Object.keys(compose.others)) if (standIns[name] === undefined) throw new Error(`compose service ${name} (${compose.others[name]}) has no local stand-in`);
    const map: SubstitutionMap = {
      hosts: Object.fromEntries(Object.entries(standIns).map(([name, { port }]) => [`${name}:${port}`, local[name as keyof typeof local]])),
      listenAddress: { from: '0.0.0.0', to: '127.0.0.1' },
      ports,
      workdir: { from: image.workdir, to: root },
      node: { from: 'node', to: process.execPath },
      added: {},
      replaced: Object.fromEntries(Object.entries(compose.others).map(([name, from]) => [`${name} (${from})`, standIns[name]?.what ?? ''])),
    };
    console.log(`${describeSubstitutions(map)}\n  user      ${image.user ?? 'root'} -> uid ${NODE_USER_UID}`);
    const plan = compose.ours.map((c) => localProcessOf(c, { map, image, services: [], scratch, pathEnv: bootPathEnv(process.execPath), otherHosts: Object.keys(compose.others) }));
    boot = new BootedProcesses(plan);
    await boot.runToCompletion('provision');
    services = compose.ours.map((c) => c.workload).filter((name) => name !== 'provision');
    // Compose never restarts an unhealthy container; the manifests' startup budget (300 s) bounds the wait.
    await boot.startAll(services, 300_000);
    gatewayUrl = `http://127.0.0.1:${ports.get('gateway')?.get(3000) ?? 0}`;
  }, 480_000);

  afterAll(async () => {
    await boot?.stop();
    await Promise.all([nats?.dispose(), postgres?.dispose(), otlp?.close(), gcs?.close(), qdrant.stop()]);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('ran provision, then every service of the file became ready on its healthcheck URL', () => {
    expect(boot.started).toEqual(['provision/provision', ...services]);
    // Every service and separate lane of the topology (compose.spec.ts checks the file lists them).
    expect([...services].sort()).toEqual([...SERVICES.map((s) => s.name as string), ...SEPARATE_LANES.map((l) => `${l.service}-${l.lane}`)].sort());
  });

  it('provision created one role per service, and no service connects as the owner (each logs in as its role, as in the cluster)', async () => {
    const client = new pg.Client({ connectionString: postgres.urlFor('openpaw') });
    await client.connect();
    try {
      const roles = SERVICES.filter((s) => s.database).map((s) => `openpaw_${s.name}`).sort();
      const created = await client.query<{ rolname: string }>("select rolname from pg_roles where rolname like 'openpaw\\_%' order by rolname");
      expect(created.rows.map((row) => row.rolname)).toEqual(roles);
      // Idle pools close their connections, so not every role is connected at any moment: none but them is.
      const connected = await client.query<{ usename: string }>("select distinct usename from pg_stat_activity where datname = 'openpaw' and pid <> pg_backend_pid()");
      expect(connected.rows.map((row) => row.usename).filter((name) => !roles.includes(name))).toEqual([]);
      expect(connected.rows.length).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });

  it('solves a text problem through the gateway, with retrieval on Qdrant and the page in the bucket', async () => {
    const alice = await GatewayClient.forUser(gatewayUrl, 'change-me-change-me-change-me-change-me', 'compose-alice');
    const submitted = await alice.submitText('3x - 4 = 11', 60);
    expect({ status: submitted.status, body: submitted.status === 200 ? undefined : submitted.body }).toEqual({ status: 200, body: undefined });
    expect(submitted.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
    expect(qdrant.requests.some((request) => request.includes('/points'))).toBe(true);
    expect(gcs.objects.size).toBeGreaterThan(0);
  });
});
