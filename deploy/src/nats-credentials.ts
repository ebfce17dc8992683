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
  ChatAnswered,
  ChatFailed,
  COORDINATOR_COMMANDS_CONSUMER,
  coordinatorEventsDurableOf,
  CRITICAL_LANE,
  DiscoverCandidates,
  criticalBacklogDurables,
  deadLetterSubjectOf,
  DocumentIndexed,
  EdgeRefuted,
  EdgeVerified,
  EVENT_CONSUMERS,
  eventConsumersOf,
  ExpansionSelected,
  InputRefused,
  laneDurableOf,
  laneOf,
  lanesOfService,
  LibraryReferencesImported,
  MediaNormalized,
  MediaRejected,
  PapersDeduplicated,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  PapersOrganised,
  PaperSourcesSearched,
  PapersScored,
  ProblemRegistered,
  ProblemWithdrawn,
  ResearchFailed,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  ResearchProviderKeyTested,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
  ResearchWebhookSet,
  RetrievalHit,
  RetrievalMiss,
  RunEnded,
  RunStateChanged,
  RunStateChangedV2,
  SearchStrategyBuilt,
  SelectNextExpansion,
  SnapshotCaptured,
  SolutionFailed,
  SolutionGenerated,
  SourceIndexed,
  SourceRejected,
  STREAMS,
  SUBJECT_ROOT,
  subjectsSentBy,
  VerifyEdge,
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
 * Commands consumers named outside the lanes catalog, by service, instead of lanes: the coordinator's
 * runtime consumes its own commands on `COORDINATOR_COMMANDS_DURABLE` and runs no lane
 * (`nats-publish-permissions.spec.ts` checks the name against the runtime's).
 */
export const OTHER_COMMAND_DURABLES_OF: Readonly<Record<string, readonly string[]>> = { coordinator: [COORDINATOR_COMMANDS_CONSUMER] };

/** The durable consumers of the commands stream that a service's lanes pull from (from the lanes catalog); none for a service consuming its commands outside it. */
function laneDurablesOf(service: string): string[] {
  if (OTHER_COMMAND_DURABLES_OF[service] !== undefined) return [];
  return [...lanesOfService(catalog, service)].filter(([, commands]) => commands.length > 0).map(([lane]) => laneDurableOf(service, lane));
}

/** Every durable consumer of the commands stream a service pulls from: its lanes', and those named outside the catalog. */
export function commandDurablesOf(service: string): readonly string[] {
  return [...laneDurablesOf(service), ...(OTHER_COMMAND_DURABLES_OF[service] ?? [])];
}

/**
 * The durable consumers of the events stream a service's code creates: those `EVENT_CONSUMERS`
 * declares for it (its code takes their names from there), and the coordinator's one per context of
 * the events its sagas take (`coordinatorEventsDurableOf`, as its runtime names them).
 */
export function eventDurablesOf(service: string): readonly string[] {
  const declared = eventConsumersOf(service).map((consumer) => consumer.durable);
  if (service !== 'coordinator') return declared;
  const contexts = new Set((EVENTS_CONSUMED_BY[service] ?? []).map((definition) => definition.context));
  return [...declared, ...[...contexts].map(coordinatorEventsDurableOf)];
}

/**
 * The API subjects with which a service creates (or updates), reads, takes from and acknowledges one
 * of its own durables on a stream: nats.js sends a create as `CONSUMER.CREATE.<stream>.<name>.<filter>`
 * to a 2.9 server, as `CONSUMER.DURABLE.CREATE.<stream>.<name>` to older ones.
 */
function ownDurableSubjects(stream: string, durable: string): string[] {
  return [
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    `$JS.ACK.${stream}.${durable}.>`,
  ];
}

/**
 * The lanes whose backlog a service reads besides its own (consumer info: counts, no payload), as
 * its code does: the gateway's admission control the coordinator's and every critical lane
 * (`criticalBacklogDurables`); the coordinator's command observer, when a step's timer fires, the
 * lane of each command it sends (`laneOf` of `MESSAGES_SENT_BY`). No other service reads another's
 * lane. A service with lanes also reads its own critical lane's durable when none of its commands is
 * on it (visual-search): a lane's new durable starts where that one had got to (the messaging module).
 */
export function laneBacklogsReadBy(service: string): readonly string[] {
  const resumePoint = laneDurablesOf(service).length > 0 ? [laneDurableOf(service, CRITICAL_LANE)] : [];
  const read =
    service === 'gateway'
      ? criticalBacklogDurables(catalog)
      : service === 'coordinator'
        ? subjectsSentBy(service).flatMap((subject) => {
            const definition = catalog.find((candidate) => candidate.subject === subject);
            const lane = definition === undefined ? undefined : laneOf(definition);
            return definition === undefined || lane === undefined ? [] : [laneDurableOf(definition.context, lane)];
          })
        : [];
  const own = new Set(commandDurablesOf(service));
  return [...new Set([...resumePoint, ...read])].filter((durable) => !own.has(durable));
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
  const receipts = laneDurablesOf(service).length > 0 ? [KV_BUCKETS.commandReceipts.name] : [];
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
 * What the gateway's ops API reads on its own user (`apps/gateway/src/ops/jetstream-ops.ts`): the
 * consumers of the commands and events streams (its lanes view), the dead-letter stream's info and
 * letters. A redrive runs as the redriver.
 */
const OPS_API_READS: readonly string[] = [
  `$JS.API.CONSUMER.LIST.${COMMANDS}`,
  `$JS.API.CONSUMER.LIST.${EVENTS}`,
  `$JS.API.STREAM.INFO.${STREAMS.deadLetters.name}`,
  `$JS.API.STREAM.MSG.GET.${STREAMS.deadLetters.name}`,
];

/**
 * The JetStream API requests (and acknowledgements) a service makes, listed, never `$JS.API.>`:
 * nats-server gives deny priority over allow, so under a wildcard allow a service's own durables
 * could not be told apart from any other named consumer on the commands stream. From what its code
 * declares:
 * - the account's JetStream info (every JetStream manager asks it) and flow-control answers of
 *   ordered consumers (KV watches);
 * - its own commands durables (`commandDurablesOf`) and events durables (`eventDurablesOf`): create
 *   or update, read, take, acknowledge;
 * - the backlog of the lanes its code reads besides its own (`laneBacklogsReadBy`);
 * - the KV buckets it uses (`kvBucketsOf`), every request naming their streams (administration is
 *   still denied);
 * - the gateway's ops API reads (`OPS_API_READS`).
 */
export function jetStreamApiOf(service: string): readonly string[] {
  return [
    '$JS.API.INFO',
    '$JS.FC.>',
    ...commandDurablesOf(service).flatMap((durable) => ownDurableSubjects(COMMANDS, durable)),
    ...eventDurablesOf(service).flatMap((durable) => ownDurableSubjects(EVENTS, durable)),
    ...laneBacklogsReadBy(service).map((durable) => `$JS.API.CONSUMER.INFO.${COMMANDS}.${durable}`),
    ...kvBucketsOf(service).flatMap(kvStreamApiSubjects),
    ...(service === DEAD_LETTER_REDRIVER ? OPS_API_READS : []),
  ];
}

/**
 * The events each service's own consumers take (`startConsumer` on the events stream), by service:
 * the coordinator's are its saga registry's event inputs (one consumer per context), the others'
 * those of their `EVENT_CONSUMERS` (the gateway's run and asset projections and research reports,
 * research's webhook deliveries and paper-set retention). `nats-publish-permissions.spec.ts` checks
 * this against each service's source both ways (the coordinator's against `productionRegistry`).
 */
export const EVENTS_CONSUMED_BY: Readonly<Record<string, readonly AnyMessageDefinition[]>> = {
  coordinator: [
    MediaNormalized, MediaRejected, RetrievalHit, RetrievalMiss, ProblemRegistered, AssetVersionCreated, DocumentIndexed, SolutionGenerated,
    SolutionFailed, VideoRendered, VideoRenderFailed, SnapshotCaptured, ArtifactPlanned, ArtifactGenerated, ArtifactJobProgress, ArtifactValidated,
    ArtifactStepFailed, PaperSearchIntentParsed, SearchStrategyBuilt, PaperSourcesSearched, PapersDeduplicated, PapersScored, PapersOrganised,
    PaperSearchStepFailed, EdgeVerified, EdgeRefuted, CandidatesDiscovered, ExpansionSelected, VisualStepFailed, VisualPersonTakenDown,
    ResearchLegStarted, ResearchLegCompleted, ResearchLegFailed, ResearchSynthesized, ResearchSynthesisFailed, ResearchTitleGenerated,
  ],
  ...Object.fromEntries(Object.keys(EVENT_CONSUMERS).map((service) => [service, eventConsumersOf(service).flatMap((consumer) => consumer.definitions)])),
};

/**
 * The dead-letter subjects a service may publish: those of what its consumers take. A command lane
 * dead-letters any command of its service's context (one it has no handler for too), an event
 * consumer only the events it handles (others it skips). So a service cannot plant a dead letter of
 * another's message, which an operator's redrive would then publish (the redrive also refuses a
 * letter stored on a subject other than the dead-letter subject of the one it names).
 */
export function deadLetterSubjectsOf(service: string): readonly string[] {
  // Every commands durable, the coordinator's own too: a poison StartRun is dead-lettered like a lane's command.
  const commands = commandDurablesOf(service).length > 0 ? [deadLetterSubjectOf(`${SUBJECT_ROOT}.cmd.${service}.>`)] : [];
  return [...commands, ...(EVENTS_CONSUMED_BY[service] ?? []).map((definition) => deadLetterSubjectOf(definition.subject))];
}

/**
 * The messages a service's code subscribes to directly (a core subscription: each one as it is
 * published, not through a consumer), by service: the gateway's live run events (a watched run's
 * changes and refusals) and the replies its requests wait for (`CommandReplies`); research's and
 * visual-search's run ends, which stop the work in flight, and visual-search's step commands, each of
 * which stops the run's earlier steps in every replica. A service subscribes to these and to its
 * inboxes (`_INBOX.>`: request replies, its consumers' deliveries, PubAcks) only, so it cannot
 * read the platform's commands and events as they pass. `nats-publish-permissions.spec.ts` checks
 * this against each service's source both ways.
 */
export const SUBJECTS_SUBSCRIBED_BY: Readonly<Record<string, readonly AnyMessageDefinition[]>> = {
  gateway: [
    RunStateChangedV2, RunStateChanged, InputRefused, VisualPersonTakenDown, LibraryReferencesImported, ResearchWebhookSet, ResearchProviderKeyTested,
    SourceIndexed, SourceRejected, ChatAnswered, ChatFailed, SnapshotCaptured, ArtifactStepFailed,
  ],
  research: [ResearchFailed],
  // Every replica hears each withdrawal and drops the problem from its in-memory indexes (withdrawal-subscription.ts).
  retrieval: [ProblemWithdrawn],
  // Its replicas hear each step command as it is sent, to stop the run's earlier steps (step-supersession.ts).
  'visual-search': [RunEnded, VerifyEdge, DiscoverCandidates, SelectNextExpansion],
};

/** What a service may subscribe to: its inboxes and the messages its code subscribes to. */
export function subscribableSubjectsOf(service: string): readonly string[] {
  return ['_INBOX.>', ...(SUBJECTS_SUBSCRIBED_BY[service] ?? []).map((definition) => definition.subject)];
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
 *   cannot forge another service's command or event;
 * - it makes only the JetStream API requests its code does (`jetStreamApiOf`): it cannot create,
 *   take from, acknowledge or delete a consumer on the commands stream other than its own durables
 *   (so it cannot consume, and so lose, another's commands), read single commands or events, consume
 *   the events stream unless its consumers take events, nor read, watch or inspect a KV bucket it does
 *   not use (a visual-degrees run's memory names the people searched);
 * - it writes only the KV buckets it uses (`kvBucketsOf`), and dead-letters only what it consumes;
 * - it may not administer streams or buckets (denied, since its buckets' API is allowed by pattern).
 * Deny wins over allow in nats-server.
 */
export function natsPermissionsOf(user: string): NatsPermissions {
  if (user === NATS_PROVISIONER) return { publish: { allow: ['$JS.API.>'] }, subscribe: { allow: ['_INBOX.>'] } };
  if (user === NATS_REDRIVER) return { publish: { allow: [...publishableSubjectsOf(user), ...REDRIVE_API] }, subscribe: { allow: ['_INBOX.>'] } };
  if (!SERVICES.some((service) => service.name === user)) throw new Error(`no NATS user ${user} (NATS_USERS: ${NATS_USERS.join(', ')})`);
  return {
    publish: {
      allow: [...publishableSubjectsOf(user), ...jetStreamApiOf(user), ...deadLetterSubjectsOf(user), ...kvBucketsOf(user).map((bucket) => `$KV.${bucket}.>`)],
      deny: STREAM_ADMINISTRATION,
    },
    subscribe: { allow: subscribableSubjectsOf(user) },
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
