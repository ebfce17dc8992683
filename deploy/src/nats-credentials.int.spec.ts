import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceUnavailableException } from '@nestjs/common';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, nkeys, type NatsConnection } from '@nats-io/nats-core';
import { catalog, coordinatorEventsDurableOf, deadLetterSubjectOf, EVENT_CONSUMERS, eventConsumersOf, laneDurableOf, lanesOfService, RunEnded, sendersOf, STREAMS, SUBJECT_ROOT } from '@openpaw/contracts';
import {
  connectNats,
  DLQ_HEADERS,
  ensureConsumer,
  KV_BUCKETS,
  kvStreamName,
  laneFilterOf,
  natsConnectionSettingsFromEnv,
  openKvBucket,
  provisionStreams,
  redriveDeadLetter,
  serviceCommandsFilter,
  subjectMatches,
  type NatsConnectionSettings,
} from '@openpaw/messaging';
import { type ManagedProcess, natsCredsFileText, startConfiguredNatsServer } from '@openpaw/testing';
// The gateway's redrive runs here against the accounts this project generates; the gateway is an app, not a library.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { GatewayConfig } from '../../apps/gateway/src/config.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { JetStreamOps } from '../../apps/gateway/src/ops/jetstream-ops.js';
import {
  commandDurablesOf,
  deadLetterSubjectsOf,
  eventDurablesOf,
  EVENTS_CONSUMED_BY,
  kvBucketsOf,
  laneBacklogsReadBy,
  NATS_PROVISIONER,
  NATS_REDRIVER,
  NATS_USERS,
  serviceUsersFromCredsDir,
  SUBJECTS_SUBSCRIBED_BY,
} from './nats-credentials.js';
import { NATS_ACCOUNTS_INCLUDE, NATS_ACCOUNTS_KEY } from './nats-values.js';
import { natsAccountsConfig, PARTNER_API_PREFIX, PARTNER_EVENT_ALLOWLIST, partnerConsumerName, provisionPartnerConsumers } from './partner-access.js';
import { refusalOf } from './testing/refusal.js';
import { SERVICES } from './topology.js';

const COMMAND = 'openpaw.cmd.solve.GenerateSolution.v1';
const SOLVE_DURABLE = 'svc-solve';
/** A JetStream API call of the setup may take this long (nats.js' default is 5 s). */
const SETUP_API_TIMEOUT_MS = 30_000;
/** A partner beside the service users, as production's accounts block has both. */
const PARTNER = { name: 'acme', user: 'acme', password: 'acme-secret' };

/** An attempt a service makes: what it is, whether its user may, and the attempt. */
type Attempt = [what: string, allowed: boolean, attempt: () => Promise<unknown>];

/** Makes each attempt in turn, adding `<service> <what>: allowed|refused|<other error>` to what happened and what was expected. */
async function tabulate(service: string, attempts: readonly Attempt[], outcomes: string[], expected: string[]): Promise<void> {
  for (const [what, allowed, attempt] of attempts) {
    const refusal = await refusalOf(attempt);
    outcomes.push(`${service} ${what}: ${/Permission/i.test(refusal) ? 'refused' : refusal === 'allowed' ? 'allowed' : refusal}`);
    expected.push(`${service} ${what}: ${allowed ? 'allowed' : 'refused'}`);
  }
}

/** A service making one of its own durables as its code does (`ensureConsumer`), then reading it and taking (and acknowledging) what it holds. */
function ownDurableAttempt(nc: NatsConnection, stream: string, durable: string, filterSubject: string): Attempt {
  return [
    `own durable ${durable}`,
    true,
    async () => {
      await ensureConsumer(await jetstreamManager(nc), { stream, durable, filterSubject, maxDeliver: 5, ackWaitMs: 30_000, maxAckPending: 100 });
      const message = await (await jetstream(nc).consumers.get(stream, durable)).next({ expires: 1_000 });
      if (message !== null) expect(await message.ackAck()).toBe(true);
    },
  ];
}

/** A durable created in the form older servers take (`CONSUMER.DURABLE.CREATE.<stream>.<name>`). */
function olderFormCreate(nc: NatsConnection, stream: string, durable: string, filterSubject: string): Promise<unknown> {
  const request = { stream_name: stream, config: { durable_name: durable, ack_policy: 'explicit', filter_subject: filterSubject } };
  return nc.request(`$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`, JSON.stringify(request), { timeout: 2_000 });
}

describe('per-service NATS users on nats-server 2.9 (accounts from deploy/src/nats-credentials.ts)', () => {
  let dir: string;
  let server: ManagedProcess;
  let url: string;
  const connections: NatsConnection[] = [];
  const credsFileOf = new Map<string, string>();

  /** A connection as a workload makes it: `OPENPAW_NATS_CREDS_FILE` naming its mounted file. */
  const connectAs = async (user: string): Promise<NatsConnection> => {
    const settings = natsConnectionSettingsFromEnv({ OPENPAW_NATS_CREDS_FILE: credsFileOf.get(user) });
    // The handshake gets 20 s (nats.js' 5 s is too short on a machine at load ~20); a refusal still comes at once.
    const nc = await connectNats({ servers: url, name: user, settings, connectOptions: { waitOnFirstConnect: false, reconnect: false, timeout: 20_000 } });
    connections.push(nc);
    return nc;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-nats-users-'));
    // The files ops issue (one per user), and the accounts block built from them as nats-accounts-cli does.
    mkdirSync(join(dir, 'creds'));
    for (const user of NATS_USERS) {
      const path = join(dir, 'creds', `${user}.creds`);
      writeFileSync(path, natsCredsFileText(nkeys.createUser().getSeed()));
      credsFileOf.set(user, path);
    }
    // Laid out as the chart's pod has them: its config in nats-config/, the accounts Secret beside it, included as the values say.
    mkdirSync(join(dir, 'nats-config'));
    mkdirSync(join(dir, 'nats-accounts'));
    writeFileSync(join(dir, 'nats-accounts', NATS_ACCOUNTS_KEY), natsAccountsConfig({ serviceUsers: serviceUsersFromCredsDir(join(dir, 'creds')), partners: [PARTNER] }));
    const conf = join(dir, 'nats-config', 'nats.conf');
    // Ready on its own log line, on a port no other process took meanwhile (once, at load ~22, every test failed within ms).
    let port: number;
    ({ proc: server, port } = await startConfiguredNatsServer((free) => {
      writeFileSync(conf, `host: 127.0.0.1\nport: ${free}\njetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }\ninclude ${JSON.stringify(NATS_ACCOUNTS_INCLUDE)}\n`);
      return conf;
    }));
    url = `nats://127.0.0.1:${port}`;
    // The stream owner provisions, as the migrations Job's first step does. The setup's JetStream API
    // calls (a dozen streams and buckets on a file store) get the time a loaded machine needs, not 5 s each.
    const owner = await jetstreamManager(await connectAs(NATS_PROVISIONER), { timeout: SETUP_API_TIMEOUT_MS });
    await provisionStreams(owner, { mode: 'reconcile' });
    await provisionPartnerConsumers(owner, [PARTNER.name]);
    const solve = await jetstreamManager(await connectAs('solve'), { timeout: SETUP_API_TIMEOUT_MS });
    await solve.consumers.add(STREAMS.commands.name, { durable_name: SOLVE_DURABLE, filter_subject: 'openpaw.cmd.solve.>', ack_policy: AckPolicy.Explicit });
    await jetstream(await connectAs('coordinator'), { timeout: SETUP_API_TIMEOUT_MS }).publish(COMMAND, JSON.stringify({ kind: 'command' }));
  }, 120_000);

  afterAll(async () => {
    for (const nc of connections) await nc.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The commands stream's message count, as the stream owner reads it (a service may not read the stream's info). */
  const commandCount = async (): Promise<number> => (await (await jetstreamManager(await connectAs(NATS_PROVISIONER))).streams.info(STREAMS.commands.name)).state.messages;

  it('refuses a key that is not a platform user', async () => {
    const stranger = join(dir, 'stranger.creds');
    writeFileSync(stranger, natsCredsFileText(nkeys.createUser().getSeed()));
    await expect(
      connectNats({ servers: url, name: 'stranger', settings: { credsFile: stranger }, connectOptions: { waitOnFirstConnect: false, reconnect: false } }),
    ).rejects.toThrow(/Authorization|authentication/i);
  });

  it("refuses a service another service's commands, and stream administration; the commands stream is unchanged", async () => {
    const research = await connectAs('research');
    const before = await commandCount();
    expect(before).toBe(1);
    const refusals: string[] = [];
    const refused = async (attempt: () => Promise<unknown>): Promise<void> => void refusals.push(await refusalOf(attempt));
    const commands = STREAMS.commands.name;
    await refused(() => research.request(`$JS.API.CONSUMER.MSG.NEXT.${commands}.${SOLVE_DURABLE}`, JSON.stringify({ batch: 1, no_wait: true }), { timeout: 2_000 }));
    await refused(() => research.request(`$JS.API.CONSUMER.DELETE.${commands}.${SOLVE_DURABLE}`, '', { timeout: 2_000 }));
    await refused(() => research.request(`$JS.API.STREAM.PURGE.${commands}`, '', { timeout: 2_000 }));
    await refused(() => research.request(`$JS.API.STREAM.DELETE.${commands}`, '', { timeout: 2_000 }));
    await refused(() => research.request(`$JS.API.STREAM.MSG.DELETE.${commands}`, JSON.stringify({ seq: 1 }), { timeout: 2_000 }));
    // A KV bucket at R1 beside the owner's: refused like any stream creation.
    await refused(() => research.request('$JS.API.STREAM.CREATE.KV_rogue', JSON.stringify({ name: 'KV_rogue', subjects: ['$KV.rogue.>'], num_replicas: 1 }), { timeout: 2_000 }));
    expect(refusals).toHaveLength(6);
    for (const refusal of refusals) expect(refusal).toMatch(/Permission/i);
    expect(await commandCount()).toBe(before);
  });

  it("refuses a service's own user stream provisioning in every mode but off, the default create-missing too (why its config refuses them at start)", async () => {
    const jsm = await jetstreamManager(await connectAs('solve'));
    for (const mode of ['create-missing', 'reconcile'] as const) await expect(provisionStreams(jsm, { mode })).rejects.toThrow(/Permission/i);
    expect(await provisionStreams(jsm, { mode: 'off' })).toMatchObject({ [STREAMS.commands.name]: { result: 'skipped' } });
  });

  it('lets a service take and acknowledge its own commands', async () => {
    const solve = await connectAs('solve');
    const consumer = await jetstream(solve).consumers.get(STREAMS.commands.name, SOLVE_DURABLE);
    const message = await consumer.next({ expires: 5_000 });
    expect(message?.subject).toBe(COMMAND);
    expect(await message?.ackAck()).toBe(true);
  });

  it('gives the stream owner the JetStream API only: it publishes no message', async () => {
    const provisioner = await connectAs(NATS_PROVISIONER);
    await expect(provisioner.request(COMMAND, JSON.stringify({ kind: 'forged' }), { timeout: 2_000 })).rejects.toThrow(/Permission/i);
    expect((await (await jetstreamManager(provisioner)).streams.info(STREAMS.commands.name)).config.name).toBe(STREAMS.commands.name);
  });
  it('lets each service publish exactly the messages the catalog says it sends (the gateway too), and the dead letters of what it consumes; refuses the rest', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const { name: service } of SERVICES) {
      const js = jetstream(await connectAs(service));
      // Every subject of the catalog, one not in it, and the dead letter of each; each publish awaits its ack or its refusal.
      const messages = [...catalog.map((definition) => definition.subject), 'openpaw.cmd.solve.Forged.v1'];
      const attempts = [...messages, ...messages.map(deadLetterSubjectOf)];
      const refusals = await Promise.all(attempts.map((subject) => refusalOf(() => js.publish(subject, JSON.stringify({ kind: 'probe', service }), { timeout: 5_000 }))));
      attempts.forEach((subject, i) => {
        const definition = catalog.find((candidate) => candidate.subject === subject);
        const allowed = subject.startsWith('openpaw.dlq.')
          ? deadLetterSubjectsOf(service).some((pattern) => subjectMatches(pattern, subject))
          : definition !== undefined && sendersOf(definition).includes(service);
        outcomes.push(`${service} ${subject}: ${/Permission/i.test(refusals[i] ?? '') ? 'refused' : refusals[i]}`);
        expected.push(`${service} ${subject}: ${allowed ? 'allowed' : 'refused'}`);
      });
    }
    expect(outcomes).toEqual(expected);
    // Not a vacuous table: every service is refused something, and every message has a sender allowed.
    for (const { name: service } of SERVICES) expect(expected.some((line) => line.startsWith(`${service} `) && line.endsWith('refused'))).toBe(true);
    // A service dead-letters its own commands (one it has no handler for too) and is refused another's: research cannot plant a dead letter of solve's command for a redrive to publish.
    expect(expected).toContain(`solve ${deadLetterSubjectOf('openpaw.cmd.solve.Forged.v1')}: allowed`);
    // The coordinator's runtime dead-letters a poison StartRun from its own durable (outside the lanes catalog).
    expect(expected).toContain(`coordinator ${deadLetterSubjectOf('openpaw.cmd.coordinator.StartRun.v1')}: allowed`);
    expect(expected).toContain(`research ${deadLetterSubjectOf(COMMAND)}: refused`);
    expect(expected).toContain(`gateway ${deadLetterSubjectOf(COMMAND)}: refused`);
  });

  it('lets each service subscribe to the messages its code subscribes to and its inboxes, and to no other message (commands and events pass unseen)', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const { name: service } of SERVICES) {
      const nc = await connectAs(service);
      const subjects = [...catalog.map((definition) => definition.subject), 'openpaw.>', 'openpaw.cmd.>', '>', '_INBOX.probe'];
      const refused = new Set<string>();
      for (const subject of subjects) nc.subscribe(subject, { callback: (error) => void (error !== null && /Permission/i.test(error.message) && refused.add(subject)) });
      // The server answers a refused subscription with an error after the SUB; a round trip later all have come.
      await nc.flush();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const allowed = new Set(['_INBOX.probe', ...(SUBJECTS_SUBSCRIBED_BY[service] ?? []).map((definition) => definition.subject)]);
      for (const subject of subjects) {
        outcomes.push(`${service} subscribe ${subject}: ${refused.has(subject) ? 'refused' : 'allowed'}`);
        expected.push(`${service} subscribe ${subject}: ${allowed.has(subject) ? 'allowed' : 'refused'}`);
      }
    }
    expect(outcomes).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['gateway subscribe openpaw.evt.workflow.RunStateChanged.v2: allowed', 'solve subscribe openpaw.>: refused', 'research subscribe openpaw.cmd.solve.GenerateSolution.v1: refused']));
  });

  it('lets the redriver republish any message and move a dead letter, and nothing else: no dead letter, no other stream, no consumer', async () => {
    const nc = await connectAs(NATS_REDRIVER);
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const refusals = await Promise.all(catalog.map((definition) => refusalOf(() => js.publish(definition.subject, JSON.stringify({ kind: 'redriven' }), { timeout: 5_000 }))));
    expect(refusals.filter((refusal) => refusal !== 'allowed')).toEqual([]);
    // The gateway's redrive, as the redriver: solve's dead letter is read, republished to its command and deleted.
    const headers = natsHeaders();
    headers.set(DLQ_HEADERS.originalSubject, COMMAND);
    const dead = await jetstream(await connectAs('solve')).publish(deadLetterSubjectOf(COMMAND), JSON.stringify({ kind: 'dead' }), { headers });
    const commandsBefore = await commandCount();
    expect(await redriveDeadLetter(js, jsm, dead.seq)).toMatchObject({ kind: 'redriven', subject: COMMAND });
    expect(await commandCount()).toBe(commandsBefore + 1);
    expect(await redriveDeadLetter(js, jsm, dead.seq)).toMatchObject({ kind: 'not_found' });
    // The gateway's ops API redrives on the redriver's connection; on the gateway's own it is refused and the letter stays.
    const gateway = await connectAs('gateway');
    const another = await jetstream(await connectAs('solve')).publish(deadLetterSubjectOf(COMMAND), JSON.stringify({ kind: 'dead' }), { headers });
    // Only the two settings JetStreamOps reads; the rest of the gateway's config plays no part in a redrive.
    const opsConfig = (redriverNats?: NatsConnectionSettings): GatewayConfig => ({ natsUrl: url, ...(redriverNats === undefined ? {} : { redriverNats }) }) as unknown as GatewayConfig;
    const alone = new JetStreamOps(gateway, opsConfig());
    expect(await refusalOf(() => alone.redrive(another.seq))).not.toBe('allowed');
    const withRedriver = new JetStreamOps(gateway, opsConfig(natsConnectionSettingsFromEnv({ OPENPAW_NATS_CREDS_FILE: credsFileOf.get(NATS_REDRIVER) })));
    try {
      expect(await withRedriver.redrive(another.seq)).toMatchObject({ kind: 'redriven', subject: COMMAND });
    } finally {
      await withRedriver.onModuleDestroy();
    }
    // The ops API's reads run on the gateway's own user (its lanes view, the dead letters); another service is refused them.
    expect((await alone.lanes()).map((lane) => lane.consumer)).toContain(SOLVE_DURABLE);
    expect((await alone.deadLetters(5)).total).toBeGreaterThan(0);
    const research = new JetStreamOps(await connectAs('research'), opsConfig());
    expect(await refusalOf(() => research.lanes())).toMatch(/Permission/i);
    expect(await refusalOf(() => research.deadLetters(5))).toMatch(/Permission/i);
    // Its Secret not issued yet (mounted optionally): the redrive answers 503 naming the setting; the letter stays.
    const unissued = new JetStreamOps(gateway, opsConfig(natsConnectionSettingsFromEnv({ OPENPAW_NATS_CREDS_FILE: `${credsFileOf.get(NATS_REDRIVER) ?? ''}.not-issued` })));
    const unavailable = await unissued.redrive(dead.seq + 1_000).then(() => undefined, (error: unknown) => error);
    expect(unavailable).toBeInstanceOf(ServiceUnavailableException);
    expect((unavailable as Error).message).toMatch(/OPENPAW_NATS_REDRIVER_CREDS_FILE.*cannot be read/);
    for (const attempt of [
      () => js.publish(deadLetterSubjectOf(COMMAND), 'x', { timeout: 5_000 }),
      () => nc.request(`$JS.API.STREAM.INFO.${STREAMS.commands.name}`, '', { timeout: 2_000 }),
      () => nc.request(`$JS.API.STREAM.MSG.GET.${STREAMS.events.name}`, JSON.stringify({ seq: 1 }), { timeout: 2_000 }),
      () => nc.request(`$JS.API.CONSUMER.MSG.NEXT.${STREAMS.commands.name}.${SOLVE_DURABLE}`, JSON.stringify({ batch: 1, no_wait: true }), { timeout: 2_000 }),
      () => nc.request(`$KV.${KV_BUCKETS.visualRunMemory.name}.x`, 'x', { timeout: 2_000 }),
    ]) {
      expect(await refusalOf(attempt)).toMatch(/Permission/i);
    }
  });

  it('refuses every service a single command or event, and a throwaway consumer on either stream', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const { name: service } of SERVICES) {
      const nc = await connectAs(service);
      const ephemeral = (stream: string, filter: string): string => JSON.stringify({ stream_name: stream, config: { ack_policy: 'explicit', filter_subject: filter } });
      const attempts: Attempt[] = [
        ['read a command', false, () => nc.request(`$JS.API.STREAM.MSG.GET.${STREAMS.commands.name}`, JSON.stringify({ seq: 1 }), { timeout: 2_000 })],
        ['read an event', false, () => nc.request(`$JS.API.STREAM.MSG.GET.${STREAMS.events.name}`, JSON.stringify({ seq: 1 }), { timeout: 2_000 })],
        ['direct-read a command', false, () => nc.request(`$JS.API.DIRECT.GET.${STREAMS.commands.name}`, JSON.stringify({ seq: 1 }), { timeout: 2_000 })],
        ['throwaway consumer on commands', false, () => nc.request(`$JS.API.CONSUMER.CREATE.${STREAMS.commands.name}`, ephemeral(STREAMS.commands.name, COMMAND), { timeout: 2_000 })],
        // No code of ours makes a throwaway consumer on the events stream: each takes events through its own durables.
        ['throwaway consumer on events', false, () => nc.request(`$JS.API.CONSUMER.CREATE.${STREAMS.events.name}`, ephemeral(STREAMS.events.name, 'openpaw.evt.>'), { timeout: 2_000 })],
      ];
      await tabulate(service, attempts, outcomes, expected);
    }
    expect(outcomes).toEqual(expected);
    expect(expected).toContain('coordinator throwaway consumer on events: refused');
  });

  it("lets a lane's backlog be read by the service that consumes it and the code that watches it (the gateway's admission the critical lanes, the coordinator the lanes of its commands); refuses the others", async () => {
    const commands = STREAMS.commands.name;
    // Every lane of the catalog, the coordinator's own commands durable, and every durable some service reads.
    const lanes = [...new Set(SERVICES.flatMap(({ name }) => [...commandDurablesOf(name), ...laneBacklogsReadBy(name)]))];
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const { name: service } of SERVICES) {
      const nc = await connectAs(service);
      const readable = new Set([...commandDurablesOf(service), ...laneBacklogsReadBy(service)]);
      // The request as consumer info sends it: a lane not created yet answers "not found", which is not a refusal.
      const attempts = lanes.map((durable): Attempt => [`backlog of ${durable}`, readable.has(durable), () => nc.request(`$JS.API.CONSUMER.INFO.${commands}.${durable}`, '', { timeout: 2_000 })]);
      await tabulate(service, attempts, outcomes, expected);
    }
    expect(outcomes).toEqual(expected);
    // Not a vacuous table: what each reader's code reads, and what it does not.
    expect(expected).toEqual(
      expect.arrayContaining([
        'solve backlog of svc-solve: allowed',
        'research backlog of svc-solve: refused',
        'gateway backlog of svc-solve: allowed',
        'gateway backlog of coordinator: allowed',
        'gateway backlog of svc-assets-video: refused',
        'coordinator backlog of svc-assets-video: allowed',
        'assets backlog of svc-assets-video: allowed',
        'solve backlog of svc-assets-video: refused',
        'visual-search backlog of coordinator: refused',
        // Its one lane is not the critical one, whose durable a new lane's resume point is read from.
        'visual-search backlog of svc-visual-search: allowed',
      ]),
    );
  });

  it("refuses every service a consumer on the events stream other than its own durables (a rogue name in both create forms, another service's durable); its own it creates, reads and takes from", async () => {
    const events = STREAMS.events.name;
    // What each durable reads, as the service's code creates it: the declared filter, the coordinator's one context each.
    const filterOf = new Map<string, string>();
    for (const { name: service } of SERVICES) for (const consumer of eventConsumersOf(service)) filterOf.set(consumer.durable, consumer.filterSubject);
    for (const context of new Set((EVENTS_CONSUMED_BY['coordinator'] ?? []).map((definition) => definition.context))) {
      filterOf.set(coordinatorEventsDurableOf(context), `${SUBJECT_ROOT}.evt.${context}.>`);
    }
    // An event for a durable to take (research's paper-set retention reads RunEnded), published by its sender.
    await jetstream(await connectAs(sendersOf(RunEnded)[0] ?? '')).publish(RunEnded.subject, JSON.stringify({ kind: 'event' }));
    const outcomes: string[] = [];
    const expected: string[] = [];
    const allEventDurables = SERVICES.flatMap(({ name }) => [...eventDurablesOf(name)]);
    const partnerConsumer = partnerConsumerName(PARTNER.name, PARTNER_EVENT_ALLOWLIST[0]?.subject ?? '');
    for (const { name: service } of SERVICES) {
      const nc = await connectAs(service);
      const jsm = await jetstreamManager(nc);
      const rogue = `rogue-${service}`;
      // Another service's durable: the gateway's run projection, or (for the gateway) research's paper-set retention.
      const foreign = service === 'gateway' ? EVENT_CONSUMERS.research.paperSetEnds.durable : EVENT_CONSUMERS.gateway.runProjection.durable;
      const attempts: Attempt[] = [
        ['named consumer on events', false, () => jsm.consumers.add(events, { durable_name: rogue, filter_subject: 'openpaw.evt.>', ack_policy: AckPolicy.Explicit })],
        ['durable on events in the older form', false, () => olderFormCreate(nc, events, rogue, 'openpaw.evt.>')],
        [`create foreign ${foreign}`, false, () => jsm.consumers.add(events, { durable_name: foreign, filter_subject: filterOf.get(foreign) ?? 'openpaw.evt.>', ack_policy: AckPolicy.Explicit })],
        [`read foreign ${foreign}`, false, () => nc.request(`$JS.API.CONSUMER.INFO.${events}.${foreign}`, '', { timeout: 2_000 })],
        [`take from foreign ${foreign}`, false, () => nc.request(`$JS.API.CONSUMER.MSG.NEXT.${events}.${foreign}`, JSON.stringify({ batch: 1, no_wait: true }), { timeout: 2_000 })],
        // A partner's consumer (exported to the partner's account alone) is no service's either.
        ['take from the partner consumer', false, () => nc.request(`$JS.API.CONSUMER.MSG.NEXT.${events}.${partnerConsumer}`, JSON.stringify({ batch: 1, no_wait: true }), { timeout: 2_000 })],
        ...eventDurablesOf(service).map((durable) => ownDurableAttempt(nc, events, durable, filterOf.get(durable) ?? '')),
      ];
      await tabulate(service, attempts, outcomes, expected);
    }
    expect(outcomes).toEqual(expected);
    // Not a vacuous table: each service that consumes events made its durables, and each is refused another's.
    expect(expected).toEqual(
      expect.arrayContaining(['gateway own durable gateway-projection: allowed', 'research own durable research-paper-set-ends: allowed', 'coordinator own durable coordinator-evt-asset: allowed', 'research create foreign gateway-projection: refused']),
    );
    const owner = await jetstreamManager(await connectAs(NATS_PROVISIONER));
    const names: string[] = [];
    for await (const info of owner.consumers.list(events)) names.push(info.name);
    expect(names.filter((name) => name.startsWith('rogue-'))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(allEventDurables));
  });

  it('refuses every service a named consumer on the commands stream other than its own durables (both create forms); its own it creates, reads and takes from', async () => {
    const commands = STREAMS.commands.name;
    // What each durable reads, as the service's code creates it: a lane's filter, the coordinator's its own commands.
    const filterOf = new Map<string, string>();
    for (const { name: service } of SERVICES) {
      for (const [lane, definitions] of lanesOfService(catalog, service)) filterOf.set(laneDurableOf(service, lane), laneFilterOf(service, lane, definitions.map((d) => d.subject)));
    }
    filterOf.set('coordinator', serviceCommandsFilter('coordinator'));
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const { name: service } of SERVICES) {
      const nc = await connectAs(service);
      const jsm = await jetstreamManager(nc);
      const foreign = `rogue-${service}`;
      const attempts: Attempt[] = [
        // As nats.js sends it to a 2.9 server: CONSUMER.CREATE.<stream>.<name>.<filter>, here on solve's commands.
        ['named consumer on solve commands', false, () => jsm.consumers.add(commands, { durable_name: foreign, filter_subject: 'openpaw.cmd.solve.>', ack_policy: AckPolicy.Explicit })],
        ['named consumer without filter', false, () => jsm.consumers.add(commands, { name: foreign, ack_policy: AckPolicy.Explicit })],
        ['durable in the older form', false, () => olderFormCreate(nc, commands, foreign, COMMAND)],
        // solve's command is the only one in the stream (taken and acknowledged above): a lane that gets it again acks it.
        ...commandDurablesOf(service).map((durable) => ownDurableAttempt(nc, commands, durable, filterOf.get(durable) ?? '')),
      ];
      await tabulate(service, attempts, outcomes, expected);
    }
    expect(outcomes).toEqual(expected);
    // Not a vacuous table: the services with lanes, and the coordinator, made their own durables.
    expect(expected).toContain('solve own durable svc-solve: allowed');
    expect(expected).toContain('coordinator own durable coordinator: allowed');
    // The coordinator runs no lane: its commands' one durable is its runtime's.
    expect(commandDurablesOf('coordinator')).toEqual(['coordinator']);
    const owner = await jetstreamManager(await connectAs(NATS_PROVISIONER));
    const names: string[] = [];
    for await (const info of owner.consumers.list(commands)) names.push(info.name);
    expect(names.filter((name) => name.startsWith('rogue-'))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(SERVICES.flatMap(({ name }) => [...commandDurablesOf(name)])));
  });

  it('lets a service open, write and read its own KV buckets, as its code does; refuses it every other bucket (write, read, info, watch, remove)', async () => {
    const visual = await connectAs('visual-search');
    const memory = await openKvBucket(await jetstreamManager(visual), KV_BUCKETS.visualRunMemory.name, { signal: AbortSignal.timeout(5_000) });
    await memory.put('run-1', 'frontier');
    expect((await memory.get('run-1'))?.string()).toBe('frontier');

    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const { name: service } of SERVICES) {
      const nc = await connectAs(service);
      const js = jetstream(nc);
      for (const bucket of Object.values(KV_BUCKETS).map((spec) => spec.name)) {
        const stream = kvStreamName(bucket);
        const attempts: Record<string, () => Promise<unknown>> = {
          write: () => js.publish(`$KV.${bucket}.probe-${service}`, 'x', { timeout: 5_000 }),
          read: () => nc.request(`$JS.API.STREAM.MSG.GET.${stream}`, JSON.stringify({ last_by_subj: `$KV.${bucket}.run-1` }), { timeout: 2_000 }),
          info: () => nc.request(`$JS.API.STREAM.INFO.${stream}`, '', { timeout: 2_000 }),
          watch: () => nc.request(`$JS.API.CONSUMER.CREATE.${stream}`, JSON.stringify({ stream_name: stream, config: { ack_policy: 'none', deliver_subject: `_INBOX.watch-${service}` } }), { timeout: 2_000 }),
          // How research releases a scholarly search claim (a message delete by sequence; this one names no message).
          remove: () => nc.request(`$JS.API.STREAM.MSG.DELETE.${stream}`, JSON.stringify({ seq: 1_000_000, no_erase: true }), { timeout: 2_000 }),
        };
        const allowed = kvBucketsOf(service).includes(bucket);
        for (const [what, attempt] of Object.entries(attempts)) {
          const refusal = await refusalOf(attempt);
          outcomes.push(`${service} ${what} ${bucket}: ${/Permission/i.test(refusal) ? 'refused' : refusal === 'allowed' ? 'allowed' : refusal}`);
          expected.push(`${service} ${what} ${bucket}: ${allowed ? 'allowed' : 'refused'}`);
        }
      }
    }
    expect(outcomes).toEqual(expected);
    // Not a vacuous table: each service is refused a bucket, and each bucket is allowed to a service.
    for (const { name: service } of SERVICES) expect(expected.some((line) => line.startsWith(`${service} `) && line.endsWith('refused'))).toBe(true);
    for (const { name: bucket } of Object.values(KV_BUCKETS)) expect(expected.some((line) => line.endsWith(` ${bucket}: allowed`))).toBe(true);
    // The visual run memory is unchanged by the refused writes: only its own entry and visual-search's probe.
    expect((await memory.status()).values).toBe(2);
  });

  it("a partner consumes and acks an allowed event its sender's nkey user published, beside the services' users (production's accounts block); its command publish and commands-stream read are refused", async () => {
    const allowed = PARTNER_EVENT_ALLOWLIST[0]?.subject ?? '';
    const definition = catalog.find((candidate) => candidate.subject === allowed);
    const sender = definition === undefined ? undefined : sendersOf(definition)[0];
    expect(sender).toBeDefined();
    await jetstream(await connectAs(sender ?? '')).publish(allowed, JSON.stringify({ kind: 'event' }));
    const partner = await connectNats({ servers: url, name: 'partner-acme', settings: { user: PARTNER.user, password: PARTNER.password }, connectOptions: { waitOnFirstConnect: false, reconnect: false } });
    connections.push(partner);
    const consumer = await jetstream(partner, { apiPrefix: PARTNER_API_PREFIX }).consumers.get(STREAMS.events.name, partnerConsumerName(PARTNER.name, allowed));
    const message = await consumer.next({ expires: 5_000 });
    expect(message?.subject).toBe(allowed);
    expect(await message?.ackAck()).toBe(true);
    // It is refused a command publish and the commands stream, which stays unchanged.
    const before = await commandCount();
    expect(await refusalOf(() => partner.request(COMMAND, JSON.stringify({ kind: 'forged' }), { timeout: 2_000 }))).toMatch(/Permission/i);
    expect(await refusalOf(() => partner.request(`$JS.API.STREAM.INFO.${STREAMS.commands.name}`, '', { timeout: 2_000 }))).toMatch(/Permission/i);
    expect(await commandCount()).toBe(before);
  });
});
