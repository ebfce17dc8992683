import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS } from '@openpaw/contracts';
import { connectNats, natsConnectionSettingsFromEnv, provisionStreams } from '@openpaw/messaging';
import { type ManagedProcess, startConfiguredNatsServer } from '@openpaw/testing';
import { refusalOf } from './testing/refusal.js';
import { natsAccountsConfig, PARTNER_API_PREFIX, PARTNER_EVENT_ALLOWLIST, partnerConsumerName, provisionPartnerConsumers } from './partner-access.js';

const ALLOWED = PARTNER_EVENT_ALLOWLIST[0]?.subject ?? '';
const RUN_STATE = 'openpaw.evt.workflow.RunStateChanged.v1';
const COMMAND = 'openpaw.cmd.solve.GenerateSolution.v1';

describe('partner access to events on nats-server 2.9 (accounts config from deploy/src/partner-access.ts)', () => {
  let dir: string;
  let server: ManagedProcess;
  let url: string;
  let platform: NatsConnection;
  let partner: NatsConnection;
  let other: NatsConnection;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-partner-'));
    const accounts = natsAccountsConfig({
      platformUsers: [{ user: 'openpaw', password: 'platform-secret' }],
      partners: [
        { name: 'acme', user: 'acme', password: 'acme-secret' },
        { name: 'globex', user: 'globex', password: 'globex-secret' },
      ],
    });
    // Ready on its own "Server is ready" line, on another port if one was taken meanwhile (libs/testing).
    const started = await startConfiguredNatsServer((port) => {
      writeFileSync(join(dir, 'nats.conf'), `host: 127.0.0.1\nport: ${port}\njetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }\n${accounts}`);
      return join(dir, 'nats.conf');
    });
    server = started.proc;
    url = `nats://127.0.0.1:${started.port}`;
    // The services' settings: user and password from env, as the Secret provides them.
    platform = await connectNats({ servers: url, name: 'platform', settings: natsConnectionSettingsFromEnv({ OPENPAW_NATS_USER: 'openpaw', OPENPAW_NATS_PASSWORD: 'platform-secret' }) });
    const jsm = await jetstreamManager(platform);
    await provisionStreams(jsm, { mode: 'reconcile' });
    await provisionPartnerConsumers(jsm, ['acme', 'globex']);
    const js = jetstream(platform);
    await js.publish(COMMAND, JSON.stringify({ kind: 'command' }));
    await js.publish(RUN_STATE, JSON.stringify({ userId: 'u-1', view: { title: 'private' } }));
    await js.publish(ALLOWED, JSON.stringify({ runId: 'r-1' }));
    partner = await connectNats({ servers: url, name: 'partner-acme', settings: { user: 'acme', password: 'acme-secret' }, connectOptions: { waitOnFirstConnect: false } });
    other = await connectNats({ servers: url, name: 'partner-globex', settings: { user: 'globex', password: 'globex-secret' }, connectOptions: { waitOnFirstConnect: false } });
  });

  afterAll(async () => {
    await partner?.close();
    await platform?.close();
    await other?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const commandCount = async (): Promise<number> => (await (await jetstreamManager(platform)).streams.info(STREAMS.commands.name)).state.messages;

  it('a partner consumes an allowed event and nothing else, and acks it', async () => {
    const js = jetstream(partner, { apiPrefix: PARTNER_API_PREFIX });
    const consumer = await js.consumers.get(STREAMS.events.name, partnerConsumerName('acme', ALLOWED));
    const message = await consumer.next({ expires: 5_000 });
    expect(message?.subject).toBe(ALLOWED);
    expect(await message?.ackAck()).toBe(true);
    // RunStateChanged (user id, full run view) is not on the allowlist: no further message.
    expect(await consumer.next({ expires: 1_500 })).toBeNull();
    const info = await (await jetstreamManager(platform)).consumers.info(STREAMS.events.name, partnerConsumerName('acme', ALLOWED));
    expect(info.num_ack_pending).toBe(0);
  });

  it('refuses a wrong password, and another partner\'s user on this partner\'s consumer', async () => {
    await expect(connectNats({ servers: url, name: 'partner-wrong', settings: { user: 'acme', password: 'not-the-secret' }, connectOptions: { waitOnFirstConnect: false, reconnect: false } })).rejects.toThrow(
      /Authorization|authentication/i,
    );
    const acmeConsumer = partnerConsumerName('acme', ALLOWED);
    const refusals: string[] = [];
    for (const subject of [`${PARTNER_API_PREFIX}.CONSUMER.INFO.${STREAMS.events.name}.${acmeConsumer}`, `${PARTNER_API_PREFIX}.CONSUMER.MSG.NEXT.${STREAMS.events.name}.${acmeConsumer}`]) {
      await other.request(subject, '', { timeout: 2_000 }).then(
        () => refusals.push(`allowed: ${subject}`),
        (error: unknown) => refusals.push(error instanceof Error ? error.message : String(error)),
      );
    }
    expect(refusals).toHaveLength(2);
    for (const refusal of refusals) expect(refusal).toMatch(/Permission/i);
    // Its own consumer still answers: the refusal is about whose consumer, not the connection.
    const own = await jetstream(other, { apiPrefix: PARTNER_API_PREFIX }).consumers.get(STREAMS.events.name, partnerConsumerName('globex', ALLOWED));
    expect((await own.info()).name).toBe(partnerConsumerName('globex', ALLOWED));
  });

  it("refuses the partner's command publish, its reads of OPENPAW_COMMANDS and of the platform's own consumers; the commands stream is unchanged", async () => {
    const before = await commandCount();
    expect(before).toBe(1);
    const refusals: string[] = [];
    const refused = async (attempt: () => Promise<unknown>): Promise<void> => void refusals.push(await refusalOf(attempt));
    await refused(() => partner.request(COMMAND, JSON.stringify({ kind: 'forged' }), { timeout: 2_000 }));
    await refused(() => partner.request(`$JS.API.STREAM.INFO.${STREAMS.commands.name}`, '', { timeout: 2_000 }));
    await refused(() => partner.request(`${PARTNER_API_PREFIX}.STREAM.INFO.${STREAMS.commands.name}`, '', { timeout: 2_000 }));
    await refused(() => partner.request(`${PARTNER_API_PREFIX}.CONSUMER.MSG.NEXT.${STREAMS.commands.name}.svc-solve`, '', { timeout: 2_000 }));
    await refused(() => partner.request(`${PARTNER_API_PREFIX}.CONSUMER.CREATE.${STREAMS.events.name}`, JSON.stringify({ stream_name: STREAMS.events.name, config: { filter_subject: RUN_STATE } }), { timeout: 2_000 }));
    expect(refusals).toHaveLength(5);
    for (const refusal of refusals) expect(refusal).toMatch(/Permission/i);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await commandCount()).toBe(before);
  });
});
