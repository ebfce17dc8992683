import { STREAMS } from '@openpaw/contracts';
import { natsPermissionsConfig, natsPermissionsOf, PLATFORM_ACCOUNT } from './nats-credentials.js';

/**
 * Partner access to events (ADR 0019): the platform account exports, per partner, the consumer API
 * of consumers ops created on OPENPAW_EVENTS for that partner (info, next message, acks), nothing
 * else. A partner cannot create or configure a consumer (no filter outside the allowlist, no push
 * delivery into the platform's subjects), cannot publish into the platform, cannot read
 * OPENPAW_COMMANDS. Works on nats-server 2.9 (single-filter consumers).
 */

/** An event partners may consume, and the personal data each message of it carries. */
export interface ExportedEvent {
  readonly subject: string;
  readonly personalData: string;
}

/**
 * The allowlist. Every envelope carries `userid` (the platform's pseudonymous user id) and the run
 * id. `RunStateChanged` is NOT exported: it carries the user id and the full run view (inputs,
 * answers, titles); partners needing run progress get a dedicated redacted event first.
 */
export const PARTNER_EVENT_ALLOWLIST: readonly ExportedEvent[] = [
  {
    subject: 'openpaw.evt.asset.VideoRendered.v1',
    personalData: 'envelope userid (pseudonymous) and runId; payload: asset version ids, storage key, duration. No user content.',
  },
];

const EVENTS = STREAMS.events.name;

/** The durable ops creates for a partner and an allowed subject (consumer names have no dots). */
export function partnerConsumerName(partner: string, subject: string): string {
  return `partner-${partner}-${subject.replace(/^openpaw\.evt\./, '').replaceAll('.', '-')}`;
}

/** The pull consumer config ops provisions for a partner (explicit acks, one allowed subject). */
export function partnerConsumerConfig(partner: string, event: ExportedEvent): { durable_name: string; filter_subject: string; ack_policy: 'explicit'; ack_wait: number; max_ack_pending: number } {
  return { durable_name: partnerConsumerName(partner, event.subject), filter_subject: event.subject, ack_policy: 'explicit', ack_wait: 30_000_000_000, max_ack_pending: 1000 };
}

/** Where a partner's client sends JetStream API requests (`jetstream(nc, { apiPrefix })`). */
export const PARTNER_API_PREFIX = 'openpaw.api';

export interface NatsAccountsInput {
  /** Password users of the platform account, unrestricted (local setups and tests; production uses `serviceUsers`). */
  readonly platformUsers?: readonly { readonly user: string; readonly password: string }[];
  /**
   * The platform's nkey users (`NATS_USERS`: one per service, and the stream owner), by the public key
   * of each one's `.creds` file, each with its permissions (`natsPermissionsOf`).
   */
  readonly serviceUsers?: readonly { readonly user: string; readonly nkey: string }[];
  readonly partners: readonly { readonly name: string; readonly user: string; readonly password: string }[];
  readonly allowlist?: readonly ExportedEvent[];
}

const quote = (value: string): string => JSON.stringify(value);

/** The `accounts` block of nats-server.conf (2.9): the platform account with JetStream, one account per partner. */
export function natsAccountsConfig(input: NatsAccountsInput): string {
  const allowlist = input.allowlist ?? PARTNER_EVENT_ALLOWLIST;
  const exports: string[] = [];
  const partnerAccounts: string[] = [];
  for (const partner of input.partners) {
    const account = `PARTNER_${partner.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    const imports: string[] = [];
    const publish: string[] = [];
    for (const event of allowlist) {
      const consumer = partnerConsumerName(partner.name, event.subject);
      const api = [`CONSUMER.INFO.${EVENTS}.${consumer}`, `CONSUMER.MSG.NEXT.${EVENTS}.${consumer}`];
      for (const subject of api) {
        const stream = subject.startsWith('CONSUMER.MSG.NEXT') ? ', response_type: stream' : '';
        exports.push(`{ service: ${quote(`$JS.API.${subject}`)}, accounts: [${account}]${stream} }`);
        imports.push(`{ service: { account: ${PLATFORM_ACCOUNT}, subject: ${quote(`$JS.API.${subject}`)} }, to: ${quote(`${PARTNER_API_PREFIX}.${subject}`)} }`);
        publish.push(`${PARTNER_API_PREFIX}.${subject}`);
      }
      const acks = `$JS.ACK.${EVENTS}.${consumer}.>`;
      exports.push(`{ service: ${quote(acks)}, accounts: [${account}] }`);
      imports.push(`{ service: { account: ${PLATFORM_ACCOUNT}, subject: ${quote(acks)} } }`);
      publish.push(acks);
    }
    partnerAccounts.push(
      [
        `  ${account} {`,
        `    users: [ { user: ${quote(partner.user)}, password: ${quote(partner.password)}, permissions: { publish: { allow: [${publish.map(quote).join(', ')}] }, subscribe: { allow: ["_INBOX.>"] } } } ]`,
        `    imports: [`,
        ...imports.map((line) => `      ${line}`),
        `    ]`,
        `  }`,
      ].join('\n'),
    );
  }
  return [
    'accounts {',
    `  ${PLATFORM_ACCOUNT} {`,
    '    jetstream: enabled',
    '    users: [',
    ...(input.platformUsers ?? []).map((u) => `      { user: ${quote(u.user)}, password: ${quote(u.password)} }`),
    // The config has no names for nkey users: the comment says whose key it is.
    ...(input.serviceUsers ?? []).map((u) => `      { nkey: ${quote(u.nkey)}, permissions: ${natsPermissionsConfig(natsPermissionsOf(u.user))} } # ${u.user}`),
    '    ]',
    '    exports: [',
    ...exports.map((line) => `      ${line}`),
    '    ]',
    '  }',
    ...partnerAccounts,
    '}',
    '',
  ].join('\n');
}

/** Partner names from `OPENPAW_PARTNERS` (comma-separated, lower-case letters, digits and dashes). */
export function partnersFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const names = (env['OPENPAW_PARTNERS'] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.find((name) => !/^[a-z0-9-]+$/.test(name));
  if (bad !== undefined) throw new Error(`OPENPAW_PARTNERS: "${bad}" is not a partner name (lower-case letters, digits, dashes)`);
  return names;
}

/** The consumer API a provisioning step needs (a JetStreamManager's `consumers.add`). */
export interface ConsumerAdder {
  readonly consumers: { add(stream: string, config: ReturnType<typeof partnerConsumerConfig>): Promise<unknown> };
}

/** Creates (or updates) every partner's consumer on OPENPAW_EVENTS: one per allowed subject. Returns their names. */
export async function provisionPartnerConsumers(jsm: ConsumerAdder, partners: readonly string[], allowlist: readonly ExportedEvent[] = PARTNER_EVENT_ALLOWLIST): Promise<string[]> {
  const names: string[] = [];
  for (const partner of partners) {
    for (const event of allowlist) {
      const config = partnerConsumerConfig(partner, event);
      await jsm.consumers.add(EVENTS, config);
      names.push(config.durable_name);
    }
  }
  return names;
}
