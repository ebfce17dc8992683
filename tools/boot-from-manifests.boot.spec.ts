import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/nats-core';
import {
  createDatabase,
  findFreePort,
  findPostgresBinDir,
  type NatsClusterHandle,
  natsCredsFileText,
  type OtlpReceiver,
  type PostgresServerHandle,
  startNatsCluster,
  startOtlpReceiver,
  startPostgresServer,
  testCertificateAuthority,
} from '@openpaw/testing';
import { ArtifactsApiClient } from '../apps/gateway/src/artifacts/testing/artifacts-api-client.js';
import { GatewayClient } from '../apps/gateway/src/e2e/e2e-client.js';
import { ResearchApiClient } from '../apps/gateway/src/research/testing/research-api-client.js';
import { serviceRoleName } from '@openpaw/persistence';
import { COLLECTOR_NAME, COLLECTOR_OTLP_HTTP } from '../deploy/src/collector.js';
import { NATS_CREDENTIALS_KEY, NATS_USERS, natsCredentialsSecretOf } from '../deploy/src/nats-credentials.js';
import { NATS_TLS_KEYS, natsChartTlsValues, natsConfBlock, natsServerTlsBlock } from '../deploy/src/nats-tls.js';
import { natsAccountsConfig } from '../deploy/src/partner-access.js';
import { databaseUrlKeyOf, MIGRATOR_DATABASE_URL_KEY, providerPurposesWithKeys, providerSecretOf } from '../deploy/src/platform.js';
import { renderPlatform } from '../deploy/src/render.js';
import { DEFAULT_SETTINGS } from '../deploy/src/settings.js';
import { SERVICES } from '../deploy/src/topology.js';
import { bootPathEnv, describeSubstitutions, imageDefaultsOf, localPortsOf, localProcessOf, type LocalProcess, type SubstitutionMap } from '../deploy/src/testing/boot-plan.js';
import { BootedProcesses } from '../deploy/src/testing/boot-run.js';
import { podContainers, servicesOf, type SecretValues } from '../deploy/src/testing/pod-containers.js';
import { type FakeGcsServer, startFakeGcsServer } from '../libs/providers/src/test-support/fake-gcs-server.js';

/**
 * The platform booted from its own manifests (deploy/README.md, "The boot test"): deploy/src
 * synthesizes the objects with the default settings (what deploy/k8s/openpaw.yaml holds); every
 * container of the platform's image runs with the argv, environment (ConfigMap, Secrets filled with
 * test values, Service links, the image's ENV), mounts, read-only root and uid the objects declare,
 * each in its own mount namespace, against a 3-node nats-server cluster (the manifests ask for R3
 * streams), PostgreSQL, a GCS JSON API server and an OTLP receiver. The migrations Job runs first,
 * as the Job does; then every Deployment; then one request per workflow through the gateway; then
 * the retention CronJob once. Only the printed substitution map differs from the manifests.
 */
const root = join(import.meta.dirname, '..');
const settings = DEFAULT_SETTINGS;
/** Only for a Deployment without a startup probe (each has one: 30 × 10 s, which bounds the wait). */
const READY_WITHIN_MS = 300_000;
/** The database ops create beforehand (the manifests only name it), on the first server and on the restored one. */
const DATABASE_NAME = 'openpaw_boot';

/** An install as the chart runs it: the migrations Job (streams, then every schema), then every Deployment at once, as `kubectl apply` starts them. */
async function install(plan: readonly LocalProcess[]): Promise<BootedProcesses> {
  const boot = new BootedProcesses(plan);
  const t0 = Date.now();
  for (const job of new Set(plan.filter((p) => p.container.kind === 'Job').map((p) => p.container.workload))) await boot.runToCompletion(job);
  console.log(`boot: migrations Job done in ${Date.now() - t0} ms`);
  const deployments = plan.filter((p) => p.container.kind === 'Deployment').map((p) => p.container.workload);
  await boot.startAll(deployments, READY_WITHIN_MS);
  console.log(`boot: migrations Job and ${deployments.length} Deployments ready in ${Date.now() - t0} ms`);
  return boot;
}

describe('the platform booted from its synthesized manifests', () => {
  let nats: NatsClusterHandle;
  let postgres: PostgresServerHandle;
  let otlp: OtlpReceiver;
  let gcs: FakeGcsServer;
  let scratch: string;
  let plan: LocalProcess[];
  let gatewayUrl: string;
  const jwtSecret = randomBytes(32).toString('base64');
  let boot: BootedProcesses;
  let migratorUrl: string;
  /** The processes of the manifests with the database Secret pointing at `migratorUrl`. */
  let planFor: (migratorUrl: string) => LocalProcess[];
  /** The restore drill's new server (stopped in afterAll also when the drill failed before using it). */
  let replacement: Promise<PostgresServerHandle> | undefined;

  beforeAll(async () => {
    // Every NATS user of the manifests, with the permissions of deploy/src/nats-credentials.ts: the platform runs as it would in the cluster.
    const natsKeys = new Map(NATS_USERS.map((user) => [user, nkeys.createUser()] as const));
    const accounts = natsAccountsConfig({ serviceUsers: [...natsKeys].map(([user, key]) => ({ user, nkey: key.getPublicKey() })), partners: [] });
    scratch = mkdtempSync(join(tmpdir(), 'openpaw-boot-'));
    // TLS as the NATS chart values configure it (client certificates verified), from a CA made here: the server's Secret, and the clients' (natsTls).
    const certificates = join(scratch, 'certificates');
    mkdirSync(join(certificates, 'server'), { recursive: true });
    const ca = testCertificateAuthority(certificates, 'boot');
    const tlsSecretOf = (issued: { cert: string; key: string }) => ({ [NATS_TLS_KEYS.ca]: ca.ca, [NATS_TLS_KEYS.cert]: issued.cert, [NATS_TLS_KEYS.key]: issued.key });
    const serverTls = tlsSecretOf(ca.issue('nats', [new URL(settings.natsUrl).hostname]));
    for (const [file, content] of Object.entries(serverTls)) writeFileSync(join(certificates, 'server', file), content);
    const tlsBlock = natsConfBlock('tls', natsServerTlsBlock(natsChartTlsValues(), join(certificates, 'server')));
    [nats, postgres, otlp, gcs] = await Promise.all([startNatsCluster(3, undefined, { extraConfig: `${accounts}\n${tlsBlock}` }), startPostgresServer({ fsync: false }), startOtlpReceiver(), startFakeGcsServer()]);
    const sealing = generateKeyPairSync('x25519');
    // What ops create beforehand (the manifests only name them). No provider keys: every provider is its local default.
    // The clients' certificate (Secret natsTls), issued once: every plan below mounts the same files.
    const clientTls = tlsSecretOf(ca.issue('openpaw-client'));
    // The database Secret is filled from one migrator URL; the restore drill points it at another server.
    const secretsFor = (url: string): SecretValues => {
      // Each service's URL logs in as its own role, which the migrations Job creates (no password: this cluster trusts local roles).
      const asRole = (role: string): string => Object.assign(new URL(url), { username: role }).toString();
      return {
        [settings.secrets.database]: {
          [MIGRATOR_DATABASE_URL_KEY]: url,
          ...Object.fromEntries(SERVICES.filter((s) => s.database).map((s) => [databaseUrlKeyOf(s.name), asRole(serviceRoleName(s.name))])),
        },
        [settings.secrets.gatewayAuth]: { OPENPAW_JWT_SECRET: jwtSecret, OPENPAW_KEY_SEALING_PUBLIC_KEY: sealing.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') },
        [settings.secrets.keyOpening]: { OPENPAW_KEY_SEALING_PRIVATE_KEY: sealing.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64') },
        // One Secret per purpose, with no keys: every provider runs its local or keyless default.
        ...Object.fromEntries(providerPurposesWithKeys().map((purpose) => [providerSecretOf(settings, purpose), {}])),
        [settings.secrets.natsTls]: clientTls,
        ...Object.fromEntries(
          [...natsKeys].map(([user, key]) => [natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, user), { [NATS_CREDENTIALS_KEY]: natsCredsFileText(key.getSeed()) }]),
        ),
      };
    };
    migratorUrl = await createDatabase(postgres.adminUrl, DATABASE_NAME);
    const objects = renderPlatform(settings).platform;
    const containers = podContainers(objects, secretsFor(migratorUrl));
    const ours = containers.filter((c) => c.image === settings.image);
    const ports = await localPortsOf(ours, findFreePort);
    const natsHost = new URL(settings.natsUrl).host;
    const map: SubstitutionMap = {
      hosts: { [natsHost]: new URL(nats.urls[0] ?? '').host, [`${COLLECTOR_NAME}:${COLLECTOR_OTLP_HTTP}`]: new URL(otlp.endpoint).host },
      listenAddress: { from: '0.0.0.0', to: '127.0.0.1' },
      ports,
      workdir: { from: imageDefaultsOf(readFileSync(join(root, 'Dockerfile'), 'utf8')).workdir, to: root },
      node: { from: 'node', to: process.execPath },
      added: settings.blobs.kind === 'gcs' ? { OPENPAW_GCS_API_ENDPOINT: { value: gcs.url, why: 'https://storage.googleapis.com, the SDK default, is a local GCS JSON API server' } } : {},
      replaced: Object.fromEntries(containers.filter((c) => c.image !== settings.image).map((c) => [`${c.workload} (${c.image})`, `the OTLP receiver of libs/testing at ${otlp.endpoint}`])),
    };
    for (const other of containers.filter((c) => c.image !== settings.image)) {
      if (other.workload !== COLLECTOR_NAME) throw new Error(`${other.kind} ${other.workload} runs ${other.image}: the boot test has nothing to stand in for it`);
    }
    console.log(describeSubstitutions(map));
    const image = imageDefaultsOf(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    const services = servicesOf(objects);
    planFor = (url) =>
      podContainers(objects, secretsFor(url))
        .filter((c) => c.image === settings.image)
        .map((c) => localProcessOf(c, { map, image, services, scratch, pathEnv: bootPathEnv(process.execPath) }));
    plan = planFor(migratorUrl);
    boot = await install(plan);
    gatewayUrl = `http://127.0.0.1:${ports.get('gateway')?.get(3000) ?? 0}`;
  }, 480_000);

  afterAll(async () => {
    await boot?.stop();
    const spare = await replacement?.catch(() => undefined);
    await Promise.all([nats?.dispose(), postgres?.dispose(), spare === postgres ? undefined : spare?.dispose(), otlp?.close(), gcs?.close()]);
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  it('ran the migrations Job and has every Deployment of the manifests ready on its readiness probe', () => {
    const objects = renderPlatform(settings).platform;
    const deployments = objects.filter((o) => o.kind === 'Deployment' && o.metadata.name !== COLLECTOR_NAME).map((o) => o.metadata.name);
    expect(boot.started).toEqual(['openpaw-migrate/streams', 'openpaw-migrate/migrate', ...deployments]);
  });

  it('runs each process with a read-only root, only its declared mounts writable, as the pod user without capabilities', () => {
    for (const [workload, proc] of boot.running) {
      const pid = proc.child.pid ?? 0;
      const mounts = readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
        .map((fields) => ({ path: fields[4] ?? '', options: (fields[5] ?? '').split(',') }));
      const writable = mounts.filter((m) => m.options.includes('rw') && !/^\/(proc|sys|dev)(\/|$)/.test(m.path)).map((m) => m.path);
      const declared = plan.find((p) => p.container.workload === workload)?.container.mounts.filter((m) => !m.readOnly).map((m) => m.path);
      expect({ workload, writable }).toEqual({ workload, writable: declared });
      expect({ workload, root: mounts.find((m) => m.path === '/')?.options[0] }).toEqual({ workload, root: 'ro' });
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect({ workload, uid: /^Uid:\s+(\d+)/m.exec(status)?.[1], caps: /^CapEff:\s+(\w+)/m.exec(status)?.[1] }).toEqual({ workload, uid: '1000', caps: '0000000000000000' });
      // A write refused by the read-only root and swallowed somewhere would show in the log.
      expect({ workload, refused: proc.log().match(/.*(EROFS|read-only file system).*/gi) }).toEqual({ workload, refused: null });
    }
  });

  it('retrieve-or-generate: a text problem is solved through the gateway, its solution page stored in the bucket', async () => {
    const alice = await GatewayClient.forUser(gatewayUrl, jwtSecret, 'boot-alice');
    const submitted = await alice.submitText('2x + 3 = 7', 60);
    expect({ status: submitted.status, body: submitted.status === 200 ? undefined : submitted.body }).toEqual({ status: 200, body: undefined });
    expect(submitted.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
    expect(await (await alice.request(`/runs/${submitted.body.run_id}/solution`)).text()).toContain('<mn>2</mn>');
    expect([...gcs.objects.keys()].some((key) => key.startsWith(`${settings.blobs.kind === 'gcs' ? settings.blobs.bucket : ''}/`))).toBe(true);
  });

  it('artifact job: a quiz over a text source completes', async () => {
    const ada = await ArtifactsApiClient.forUser({ gatewayUrl, jwtSecret }, 'boot-ada');
    await ada.addText(
      'nb-boot',
      'Photosynthesis converts light energy into chemical energy stored in glucose. Chloroplasts are the organelles where photosynthesis happens in plant cells. Chlorophyll is the green pigment that absorbs red and blue light.',
    );
    const created = await ada.chat({ message: 'Create a quiz on photosynthesis', session_id: 'nb-boot', options: { num_questions: 2 } });
    expect(created.status).toBe(202);
    const job = await ada.waitForJob(created.body['job_id'] as string, (j) => j['status'] === 'completed' || j['status'] === 'failed', 90_000);
    expect(job).toMatchObject({ status: 'completed', artifact_type: 'quiz' });
  });

  it('visual degrees: a chain between the local world demo pair is found', async () => {
    const line = boot
      .log('visual-search')
      .split('\n')
      .find((l) => l.includes('localWorldDemo'));
    const pair = (JSON.parse(line ?? '{}') as { localWorldDemo?: { threeHop: { from: string; to: string } } }).localWorldDemo?.threeHop;
    expect(pair).toBeDefined();
    const alice = await GatewayClient.forUser(gatewayUrl, jwtSecret, 'boot-alice');
    const started = await alice.request('/visual-degrees', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pair) });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    expect(await alice.untilTerminal(runId, 90_000)).toMatchObject({ state: 'SUCCEEDED' });
  });

  it('paper search: a query reaches its first checkpoint (the strategy, from the research service)', async () => {
    const alice = await GatewayClient.forUser(gatewayUrl, jwtSecret, 'boot-alice');
    const created = await alice.request('/paper-searches', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'graph neural networks with attention' }) });
    expect(created.status).toBe(202);
    const { runId } = (await created.json()) as { runId: string };
    expect(await alice.untilState(runId, ['AWAITING_STRATEGY_CONFIRMATION'], 90_000)).toBe('AWAITING_STRATEGY_CONFIRMATION');
  });

  it('research: a local research completes with its synthesis', async () => {
    const rosa = await ResearchApiClient.forUser({ gatewayUrl, jwtSecret }, 'boot-rosa');
    const created = await rosa.call('POST', '/research', { prompt: 'How efficient are cold-climate heat pumps compared with gas boilers?', selectedLlms: ['local'], synthesisLlm: 'local' });
    expect(created.status).toBeLessThan(300);
    const done = await rosa.waitFor(created.body['id'] as string, (r) => r['status'] === 'completed' || r['status'] === 'failed', 90_000);
    expect(done['status']).toBe('completed');
  });

  it('restore drill (runbook): the pg_dump restored into a new PostgreSQL, then the migrations Job and the Deployments; runs read back, one in flight at the backup finishes, the index still answers', async () => {
    // The server the dump is restored into, started (initdb and all) while the runs below are set up: it
    // shares nothing with the one lost, and its start is off the drill's critical path (a few seconds of CI).
    replacement = startPostgresServer({ fsync: false });
    replacement.catch(() => undefined); // awaited below; a start that fails fails the drill there
    const carol = await GatewayClient.forUser(gatewayUrl, jwtSecret, 'boot-carol');
    const solved = await carol.submitText('5x - 2 = 13', 60);
    expect(solved.body.result).toMatchObject({ status: 'succeeded', outcome: 'new' });
    // A run in flight at the backup: solve is down, so its command waits in the stream.
    await boot.stopWorkload('solve');
    const inFlight = await carol.submitText('4x + 1 = 9');
    expect(inFlight.status).toBe(202);
    expect(await carol.untilState(inFlight.body.run_id, ['GENERATING_SOLUTION'], 60_000)).toBe('GENERATING_SOLUTION');

    // Step 1: the backup, platform running, of the migrator's URL (every schema).
    const bin = findPostgresBinDir() ?? '';
    const dump = join(scratch, 'openpaw.dump');
    execFileSync(join(bin, 'pg_dump'), ['-Fc', '-f', dump, migratorUrl]);
    // The disaster: the database server is lost. The streams survive (a surviving stream is newer than any backup: kept).
    await boot.stop();
    await postgres.dispose();

    // Step 2: every Deployment stopped; the dump restored into a new server with the runbook's command; the Secret points at it.
    postgres = await replacement;
    migratorUrl = await createDatabase(postgres.adminUrl, DATABASE_NAME);
    const restore = spawnSync(join(bin, 'pg_restore'), ['--no-owner', '--no-acl', '--exit-on-error', '-d', migratorUrl, dump], { encoding: 'utf8' });
    expect({ status: restore.status, stderr: restore.stderr }).toEqual({ status: 0, stderr: '' });
    // Step 4: the migrations Job (re-creates the roles and their grants), then the Deployments.
    boot = await install(planFor(migratorUrl));

    // Step 5: runs continue from the database.
    expect(await carol.run(solved.body.run_id)).toMatchObject({ state: 'SUCCEEDED', terminal: true });
    expect(await (await carol.request(`/runs/${solved.body.run_id}/solution`)).text()).toContain('<mn>13</mn>');
    expect(await carol.untilTerminal(inFlight.body.run_id, 90_000)).toMatchObject({ state: 'SUCCEEDED' });
    // Another user's copy of the solved problem is answered from the restored index, not solved again.
    const dave = await GatewayClient.forUser(gatewayUrl, jwtSecret, 'boot-dave');
    const copy = await dave.submitText('5x - 2 = 13', 60);
    expect(copy.body.result).toMatchObject({ status: 'succeeded', outcome: 'hit' });
  });

  it('the retention CronJob runs once to completion', async () => {
    await boot.runToCompletion('openpaw-retention');
    expect(boot.started).toContain('openpaw-retention/retention');
  });

  it("exports traces to the collector's address", async () => {
    // OTEL_SERVICE_NAME per Deployment; the gateway and the coordinator take part in every request above.
    // Spans leave in batches (every 5 s by default): on a fast machine the requests above end before the first.
    const services = (): string[] => [...new Set(otlp.spans.map((span) => span.service))];
    const deadline = Date.now() + 20_000;
    while (!(services().includes('gateway') && services().includes('coordinator')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    expect(services()).toEqual(expect.arrayContaining(['gateway', 'coordinator']));
  });

  it("refused no workload's publish or subscription: every message the workflows above sent is one its NATS user may send", () => {
    // Runs last: a refused publish is retried (the coordinator's outbox sweeper, redeliveries), so it is logged again after it first happened.
    // nats-server logs each refusal as `Publish Violation - Nkey "<user>", Subject "<subject>"` (or `Subscription Violation`).
    const violations = nats.names.flatMap((node) => nats.logs(node).split('\n').filter((line) => /Violation/.test(line)).map((line) => `${node}: ${line.replace(/^.*?\[ERR\] /, '')}`));
    expect(violations).toEqual([]);
  });
});
