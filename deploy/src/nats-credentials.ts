import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nkeys } from '@nats-io/nats-core';
import {
  ArtifactGenerated,
  ArtifactJobProgress,
  ArtifactPlanned,
  ArtifactStepFailed,
  ArtifactValidated,
  AssetVersionCreated,
  CandidatesDiscovered,
  catalog,
  deadLetterSubjectOf,
  DocumentIndexed,
  EdgeRefuted,
  EdgeVerified,
  ExpansionSelected,
  laneDurableOf,
  lanesOfService,
  MediaNormalized,
  MediaRejected,
  PapersDeduplicated,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  PapersOrganised,
  PaperSourcesSearched,
  PapersScored,
  ProblemRegistered,
  ResearchCompleted,
  ResearchFailed,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  ResearchProviderKeyTested,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
  ResearchWebhookAttempted,
  RetrievalHit,
  RetrievalMiss,
  RunEnded,
  RunStateChanged,
  RunStateChangedV2,
  SearchStrategyBuilt,
  SnapshotCaptured,
  SolutionFailed,
  SolutionGenerated,
  STREAMS,
  SUBJECT_ROOT,
  subjectsSentBy,
  VideoRendered,
  VideoRenderFailed,
  VisualPersonTakenDown,
  VisualStepFailed,
  type AnyMessageDefinition,
} from '@openpaw/contracts';
import { KV_BUCKETS, kvStreamName } from '@openpaw/messaging';
import { SERVICES } from './topology.js';

/*
 * NATS credentials of the platform: one nkey user per service (its lanes run as it) and one for the
 * stream owner (the migrations Job's `provision` step), each in the platform account with the
 * permissions below, each given to its pods as a `.creds` file from a Secret of its own.
 *
 * The file is mounted as a whole Secret volume (never with `subPath`), so the kubelet swaps it in
 * place when ops rotate the Secret, and `libs/messaging` reads it again at every (re)connect
 * (`OPENPAW_NATS_CREDS_FILE`): rotation needs no restart (docs/ops/runbook.md).
 */

/** The NATS account the platform's streams live in (its users, its JetStream): KEDA reads consumer lag there. */
export const PLATFORM_ACCOUNT = 'OPENPAW';

/** The stream owner's NATS user: the migrations Job's `streams` step (`tools/provision.js`). */
export const NATS_PROVISIONER = 'provisioner';

/**
 * The dead-letter redrive's NATS user: the gateway's ops API connects as it for a redrive alone, on
 * a connection of its own (`OPENPAW_NATS_REDRIVER_CREDS_FILE`), since a redrive republishes any message.
 */
export const NATS_REDRIVER = 'redriver';

/** The service whose pods hold the redriver's credentials (its ops API redrives). */
export const DEAD_LETTER_REDRIVER = 'gateway';

/** Who gets a NATS user of its own: every service, the stream owner and the redriver. */
export const NATS_USERS: readonly string[] = [...SERVICES.map((service) => service.name), NATS_PROVISIONER, NATS_REDRIVER];

/** Where a pod sees its NATS credentials (a read-only Secret volume), and the file in it. */
export const NATS_CREDENTIALS_DIR = '/var/run/secrets/openpaw/nats';
export const NATS_CREDENTIALS_KEY = 'nats.creds';
export const NATS_CREDENTIALS_FILE = `${NATS_CREDENTIALS_DIR}/${NATS_CREDENTIALS_KEY}`;
/** Where the gateway's pods see the redriver's credentials, beside the gateway's own. */
export const NATS_REDRIVER_CREDENTIALS_DIR = '/var/run/secrets/openpaw/nats-redriver';

/** The Secret holding a NATS user's `.creds` file (key `nats.creds`): `<prefix>-<user>`. */
export function natsCredentialsSecretOf(prefix: string, user: string): string {
  return `${prefix}-${user}`;
}

/** A user's permissions, as nats-server's config writes them (deny wins over allow). */
export interface NatsPermissions {
  readonly publish: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  readonly subscribe?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
}

const COMMANDS = STREAMS.commands.name;
const EVENTS = STREAMS.events.name;

/**
 * JetStream administration only the stream owner does: create, reshape, purge or delete a stream or
 * a KV bucket (a bucket is a stream `KV_<name>`; a service opens buckets, never creates them at R1),
 * delete a command or an event. Deleting a dead letter stays open (the gateway's redrive does it).
 */
const STREAM_ADMINISTRATION: readonly string[] = [
  '$JS.API.STREAM.CREATE.>',
  '$JS.API.STREAM.UPDATE.>',
  '$JS.API.STREAM.DELETE.>',
  '$JS.API.STREAM.PURGE.>',
  '$JS.API.STREAM.SNAPSHOT.>',
  '$JS.API.STREAM.RESTORE.>',
  `$JS.API.STREAM.MSG.DELETE.${COMMANDS}`,
  `$JS.API.STREAM.MSG.DELETE.${EVENTS}`,
];

/**
 * Reading the commands' and events' stream one message at a time (a stream or direct get): no
 * service does (its consumers take what it handles), and the two hold every run's payloads. A
 * throwaway consumer on the commands stream in the old unnamed form (`CONSUMER.CREATE.<stream>`)
 * too: every lane's consumer is a named durable.
 */
const MESSAGE_STREAM_READS: readonly string[] = [
  ...[COMMANDS, EVENTS].flatMap((stream) => [`$JS.API.STREAM.MSG.GET.${stream}`, `$JS.API.DIRECT.GET.${stream}`, `$JS.API.DIRECT.GET.${stream}.>`]),
  `$JS.API.CONSUMER.CREATE.${COMMANDS}`,
];

/** Consuming the events stream (creating a consumer on it, taking its messages): refused a service whose consumers take no event (`EVENTS_CONSUMED_BY`). */
const EVENT_CONSUMING: readonly string[] = [
  `$JS.API.CONSUMER.CREATE.${EVENTS}`,
  `$JS.API.CONSUMER.CREATE.${EVENTS}.>`,
  `$JS.API.CONSUMER.DURABLE.CREATE.${EVENTS}.>`,
  `$JS.API.CONSUMER.MSG.NEXT.${EVENTS}.>`,
];

/** Every durable consumer of the commands stream that a service's lanes pull from, by service (from the lanes catalog). */
function commandDurablesOf(service: string): string[] {
  return [...lanesOfService(catalog, service)].filter(([, commands]) => commands.length > 0).map(([lane]) => laneDurableOf(service, lane));
}

/** The API subjects that take, acknowledge, create or delete the commands of one durable consumer. */
function durableSubjects(durable: string): string[] {
  return [
    `$JS.API.CONSUMER.MSG.NEXT.${COMMANDS}.${durable}`,
    `$JS.ACK.${COMMANDS}.${durable}.>`,
    `$JS.API.CONSUMER.DELETE.${COMMANDS}.${durable}`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${COMMANDS}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${COMMANDS}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${COMMANDS}.${durable}.>`,
  ];
}


/**
 * The KV buckets a service's own code opens (`KV_BUCKETS`), besides the command receipts every
 * service with command lanes writes (its lanes record each pickup): the coordinator reads receipts
 * when a step timer fires; visual-search keeps its run memory and evidence cache; research its
 * scholarly start slots. `nats-publish-permissions.spec.ts` checks this against each service's source.
 */
export const KV_BUCKETS_OPENED_BY: Readonly<Record<string, readonly string[]>> = {
  coordinator: [KV_BUCKETS.commandReceipts.name],
  'visual-search': [KV_BUCKETS.visualRunMemory.name, KV_BUCKETS.visualEvidenceCache.name],
  research: [KV_BUCKETS.scholarlyStartSlots.name, KV_BUCKETS.scholarlyResponses.name],
};

/** Every KV bucket a service reads or writes: those its code opens, and the command receipts if it has command lanes. */
export function kvBucketsOf(service: string): readonly string[] {
  const receipts = commandDurablesOf(service).length > 0 ? [KV_BUCKETS.commandReceipts.name] : [];
  return [...new Set([...receipts, ...(KV_BUCKETS_OPENED_BY[service] ?? [])])];
}

/**
 * Every JetStream API request that names a bucket's stream (its info, a direct or stream get, a
 * consumer or watch on it): `$JS.API.<A>.<B>.KV_x[.…]` and `$JS.API.<A>.<B>.<C>.KV_x[.…]`.
 */
function kvStreamApiSubjects(bucket: string): string[] {
  const stream = kvStreamName(bucket);
  return [`$JS.API.*.*.${stream}`, `$JS.API.*.*.${stream}.>`, `$JS.API.*.*.*.${stream}`, `$JS.API.*.*.*.${stream}.>`];
}

/**
 * What every service publishes besides its messages: JetStream API requests (less the denials
 * below), acknowledgements and flow-control answers of ordered consumers (KV watches). KV writes only
 * to its own buckets (`kvBucketsOf`), dead letters only of what it consumes (`deadLetterSubjectsOf`).
 */
const SERVICE_PLUMBING: readonly string[] = ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>'];

/**
 * The events each service's own consumers take (`startConsumer` on the events stream), by service:
 * the coordinator's are its saga registry's event inputs (one consumer per context), the gateway's
 * its run and asset projections and research reports, research's its webhook deliveries and
 * paper-set retention. `nats-publish-permissions.spec.ts` checks this against each service's source
 * both ways (the coordinator's against `productionRegistry`).
 */
export const EVENTS_CONSUMED_BY: Readonly<Record<string, readonly AnyMessageDefinition[]>> = {
  coordinator: [
    MediaNormalized, MediaRejected, RetrievalHit, RetrievalMiss, ProblemRegistered, AssetVersionCreated, DocumentIndexed, SolutionGenerated,
    SolutionFailed, VideoRendered, VideoRenderFailed, SnapshotCaptured, ArtifactPlanned, ArtifactGenerated, ArtifactJobProgress, ArtifactValidated,
    ArtifactStepFailed, PaperSearchIntentParsed, SearchStrategyBuilt, PaperSourcesSearched, PapersDeduplicated, PapersScored, PapersOrganised,
    PaperSearchStepFailed, EdgeVerified, EdgeRefuted, CandidatesDiscovered, ExpansionSelected, VisualStepFailed, VisualPersonTakenDown,
    ResearchLegStarted, ResearchLegCompleted, ResearchLegFailed, ResearchSynthesized, ResearchSynthesisFailed, ResearchTitleGenerated,
  ],
  gateway: [RunStateChangedV2, RunStateChanged, AssetVersionCreated, VideoRendered, ResearchWebhookAttempted, ResearchProviderKeyTested],
  research: [ResearchCompleted, ResearchFailed, RunEnded],
};

/**
 * The dead-letter subjects a service may publish: those of what its consumers take. A command lane
 * dead-letters any command of its service's context (one it has no handler for too), an event
 * consumer only the events it handles (others it skips). So a service cannot plant a dead letter of
 * another's message, which an operator's redrive would then publish (the redrive also refuses a
 * letter stored on a subject other than the dead-letter subject of the one it names).
 */
export function deadLetterSubjectsOf(service: string): readonly string[] {
  const commands = commandDurablesOf(service).length > 0 ? [deadLetterSubjectOf(`${SUBJECT_ROOT}.cmd.${service}.>`)] : [];
  return [...commands, ...(EVENTS_CONSUMED_BY[service] ?? []).map((definition) => deadLetterSubjectOf(definition.subject))];
}

/** The message subjects a user may publish: those the catalog says a service sends (`MESSAGES_SENT_BY`), every one for the redriver. */
export function publishableSubjectsOf(user: string): readonly string[] {
  return user === NATS_REDRIVER ? catalog.map((definition) => definition.subject) : subjectsSentBy(user);
}

/**
 * A redrive reads the dead-letter stream (its info, a letter), deletes the letter it moved, and
 * republishes it to its original subject (a JetStream publish: its ack comes to an inbox).
 */
const DEAD_LETTER_STREAM = STREAMS.deadLetters.name;
const REDRIVE_API: readonly string[] = [
  '$JS.API.INFO',
  `$JS.API.STREAM.INFO.${DEAD_LETTER_STREAM}`,
  `$JS.API.STREAM.MSG.GET.${DEAD_LETTER_STREAM}`,
  `$JS.API.STREAM.MSG.DELETE.${DEAD_LETTER_STREAM}`,
];

/**
 * Least privilege, derived from the catalog:
 * - the stream owner sends JetStream API requests and reads their replies, nothing else (it publishes
 *   no message);
 * - a service publishes only the messages it sends (`MESSAGES_SENT_BY`), so a bug or a compromised pod
 *   cannot forge another service's command or event; and it may not administer streams or buckets,
 *   nor take, acknowledge, create or delete another service's command consumer, so it cannot consume
 *   (and so lose) the commands of another, nor reshape the streams every run depends on;
 * - it writes only the KV buckets it uses (`kvBucketsOf`), and cannot read, watch or inspect the
 *   others (a visual-degrees run's memory names the people searched).
 * - it reads no single command or event (`MESSAGE_STREAM_READS`), and a service that consumes no
 *   event cannot consume the events stream at all (`EVENT_CONSUMING`).
 * Deny wins over allow in nats-server.
 */
export function natsPermissionsOf(user: string): NatsPermissions {
  if (user === NATS_PROVISIONER) return { publish: { allow: ['$JS.API.>'] }, subscribe: { allow: ['_INBOX.>'] } };
  if (user === NATS_REDRIVER) return { publish: { allow: [...publishableSubjectsOf(user), ...REDRIVE_API] }, subscribe: { allow: ['_INBOX.>'] } };
  if (!SERVICES.some((service) => service.name === user)) throw new Error(`no NATS user ${user} (NATS_USERS: ${NATS_USERS.join(', ')})`);
  const others = SERVICES.filter((service) => service.name !== user).flatMap((service) => commandDurablesOf(service.name));
  const buckets = kvBucketsOf(user);
  const otherBuckets = Object.values(KV_BUCKETS)
    .map((bucket) => bucket.name)
    .filter((bucket) => !buckets.includes(bucket));
  return {
    publish: {
      allow: [...publishableSubjectsOf(user), ...SERVICE_PLUMBING, ...deadLetterSubjectsOf(user), ...buckets.map((bucket) => `$KV.${bucket}.>`)],
      deny: [
        ...STREAM_ADMINISTRATION,
        ...MESSAGE_STREAM_READS,
        ...((EVENTS_CONSUMED_BY[user] ?? []).length > 0 ? [] : EVENT_CONSUMING),
        ...others.flatMap(durableSubjects),
        ...otherBuckets.flatMap(kvStreamApiSubjects),
      ],
    },
  };
}

/** A user's permissions as nats-server's config syntax (JSON is valid there). */
export function natsPermissionsConfig(permissions: NatsPermissions): string {
  return JSON.stringify(permissions);
}

/** The public key of a `.creds` file's nkey seed (what the accounts config names the user by). */
export function publicKeyOfCreds(creds: string, where: string): string {
  const seed = /-{3,}BEGIN USER NKEY SEED-{3,}\s*\n\s*(SU[A-Z2-7]+)\s*\n/.exec(creds)?.[1];
  if (seed === undefined) throw new Error(`${where}: no user nkey seed (a .creds file has a "BEGIN USER NKEY SEED" block)`);
  return nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey();
}

/**
 * The platform's users for `natsAccountsConfig`, from a directory holding `<user>.creds` for each of
 * `NATS_USERS` (the files ops put in the credentials Secrets); a missing one is named.
 */
export function serviceUsersFromCredsDir(dir: string): { user: string; nkey: string }[] {
  return NATS_USERS.map((user) => {
    const path = join(dir, `${user}.creds`);
    let creds: string;
    try {
      creds = readFileSync(path, 'utf8');
    } catch (error) {
      throw new Error(`NATS user ${user}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    return { user, nkey: publicKeyOfCreds(creds, path) };
  });
}

/**
 * A `.creds` file as `nsc` writes it: the user JWT, then the nkey seed that signs the server's nonce.
 * With the accounts of this config file (not operator mode) nats-server checks the nkey signature
 * and does not read the JWT.
 */
export function credsFileText(jwt: string, seed: string): string {
  return `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
}
