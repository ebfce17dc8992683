import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as contracts from '@openpaw/contracts';
import { catalog, deadLetterSubjectOf, EVENT_CONSUMERS, lanesOfService, MESSAGES_SENT_BY, STREAMS, type AnyMessageDefinition } from '@openpaw/contracts';
import { KV_BUCKETS, kvStreamName } from '@openpaw/messaging';
// The coordinator's consumed events come from its real registry (checked both ways); the coordinator is an app, not a library.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { productionRegistry } from '../../apps/coordinator/src/workflows/index.js';
// The coordinator's runtime and the gateway's run projection name their events durables themselves (owned apart): compared by value.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { COORDINATOR_COMMANDS_DURABLE, coordinatorEventsDurable } from '../../apps/coordinator/src/runtime/coordinator-runtime.js';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { PROJECTION_DURABLE, PROJECTION_FILTER } from '../../apps/gateway/src/projection/projection.consumer.js';
import {
  commandDurablesOf,
  deadLetterSubjectsOf,
  eventDurablesOf,
  EVENTS_CONSUMED_BY,
  KV_BUCKETS_OPENED_BY,
  kvBucketsOf,
  NATS_REDRIVER,
  natsPermissionsOf,
  OTHER_COMMAND_DURABLES_OF,
  publishableSubjectsOf,
  subscribableSubjectsOf,
  SUBJECTS_SUBSCRIBED_BY,
} from './nats-credentials.js';
import { SERVICES } from './topology.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The source files a service runs (tests and test helpers left out); the coordinator runs the saga library too. */
function sourceFilesOf(service: string): string[] {
  const roots = [join(ROOT, 'apps', service, 'src'), ...(service === 'coordinator' ? [join(ROOT, 'libs', 'saga', 'src')] : [])];
  return roots
    .flatMap((root) => readdirSync(root, { recursive: true, encoding: 'utf8' }).map((file) => join(root, file)))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.includes('/testing/'))
    .map((file) => readFileSync(file, 'utf8'));
}

function sourceOf(service: string): string {
  return sourceFilesOf(service).join('\n');
}

/** The name `@openpaw/contracts` exports a definition under (what code that publishes it imports). */
function exportNameOf(definition: AnyMessageDefinition): string {
  const name = Object.entries(contracts).find(([, value]) => value === definition)?.[0];
  if (name === undefined) throw new Error(`${definition.subject} is not exported by @openpaw/contracts`);
  return name;
}

describe('publish permissions from the catalog (MESSAGES_SENT_BY)', () => {
  it('names only services of the platform as senders, and every service', () => {
    expect(Object.keys(MESSAGES_SENT_BY).sort()).toEqual(SERVICES.map((service) => service.name).sort());
  });

  it("lists, for each service, only messages its code names (a sender that no longer sends is dropped)", () => {
    const stale: string[] = [];
    for (const [service, definitions] of Object.entries(MESSAGES_SENT_BY) as [string, readonly AnyMessageDefinition[]][]) {
      const source = sourceOf(service);
      for (const definition of definitions) if (!new RegExp(`\\b${exportNameOf(definition)}\\b`).test(source)) stale.push(`${service}: ${definition.subject}`);
    }
    expect(stale).toEqual([]);
  });

  it('lists, for each service, every message its code hands to a publish (a reply, a saga effect, an envelope, a command)', () => {
    const definitionByName = new Map(catalog.map((definition) => [exportNameOf(definition), definition] as const));
    // The ways code names the message it publishes: a handler's reply, a saga's command or event effect, an envelope, a direct publish.
    const publishing = [/\breplyTo\(\s*[^,()]+,\s*([A-Z]\w*)/g, /\bsendTry\(\s*([A-Z]\w*)/g, /\bmessage:\s*([A-Z]\w*)/g, /\b(?:envelopeFor|createEnvelope)\(\s*([A-Z]\w*)/g, /\.publish\(\s*([A-Z]\w*)/g];
    const undeclared: string[] = [];
    let found = 0;
    for (const [service, definitions] of Object.entries(MESSAGES_SENT_BY) as [string, readonly AnyMessageDefinition[]][]) {
      const source = sourceOf(service);
      for (const pattern of publishing) {
        for (const match of source.matchAll(pattern)) {
          const definition = definitionByName.get(match[1] as string);
          if (definition === undefined) continue;
          found += 1;
          if (!definitions.includes(definition)) undeclared.push(`${service}: ${definition.subject}`);
        }
      }
    }
    expect([...new Set(undeclared)]).toEqual([]);
    // The patterns see most of the catalog's publishes (a pattern that stopped matching would pass vacuously).
    expect(found).toBeGreaterThan(catalog.length / 2);
  });

  it('lets a service publish its messages and no other message (the gateway too); the redriver every message and only the dead-letter stream API', () => {
    for (const { name: service } of SERVICES) {
      const allowed = natsPermissionsOf(service).publish.allow ?? [];
      const messages = allowed.filter((subject) => subject.startsWith('openpaw.cmd.') || subject.startsWith('openpaw.evt.'));
      expect(messages).toEqual(publishableSubjectsOf(service));
      // No wildcard over the message subjects: each one is named.
      expect(allowed.filter((subject) => /^openpaw\.(cmd|evt)\b/.test(subject) && /[*>]/.test(subject))).toEqual([]);
      expect(messages.length).toBeLessThan(catalog.length);
    }
    const redriver = natsPermissionsOf(NATS_REDRIVER).publish.allow ?? [];
    expect(redriver.filter((subject) => subject.startsWith('openpaw.'))).toEqual(catalog.map((definition) => definition.subject));
    expect(redriver.filter((subject) => subject.startsWith('$JS.API.') && subject !== '$JS.API.INFO').every((subject) => subject.endsWith(`.${STREAMS.deadLetters.name}`))).toBe(true);
    expect(redriver.filter((subject) => /[*>]/.test(subject))).toEqual([]);
  });

  it("gives each service the KV buckets its code opens (both ways), and the command receipts exactly to the services with command lanes", () => {
    const opened: Record<string, string[]> = {};
    for (const { name: service } of SERVICES) {
      const source = sourceOf(service);
      // A bucket is opened through its `KV_BUCKETS` entry; the receipts also through the store that opens them.
      const buckets = Object.entries(KV_BUCKETS)
        .filter(([key]) => new RegExp(`\\bKV_BUCKETS\\.${key}\\b`).test(source) || (key === 'commandReceipts' && /\bKvCommandReceiptStore\b/.test(source)))
        .map(([, bucket]) => bucket.name);
      if (buckets.length > 0) opened[service] = buckets;
      const hasCommandLanes = [...lanesOfService(catalog, service)].some(([, commands]) => commands.length > 0);
      expect([...kvBucketsOf(service)].sort()).toEqual([...new Set([...buckets, ...(hasCommandLanes ? [KV_BUCKETS.commandReceipts.name] : [])])].sort());
      // Its publish allow list writes exactly those buckets.
      const kvWrites = (natsPermissionsOf(service).publish.allow ?? []).filter((subject) => subject.startsWith('$KV.'));
      expect(kvWrites.sort()).toEqual(kvBucketsOf(service).map((bucket) => `$KV.${bucket}.>`).sort());
    }
    expect(opened).toEqual(KV_BUCKETS_OPENED_BY);
  });

  it("lists, for each service, exactly the events its consumers take (both ways; the coordinator's from its saga registry)", () => {
    const isEvent = (definition: AnyMessageDefinition | undefined): definition is AnyMessageDefinition => definition?.kind === 'evt';
    const definitionByName = new Map(catalog.map((definition) => [exportNameOf(definition), definition] as const));
    const taken: Record<string, AnyMessageDefinition[]> = {};
    const coordinator = new Set(productionRegistry().all().flatMap((saga) => [...saga.inputs, ...(saga.amendedBy ?? [])]));
    taken['coordinator'] = [...coordinator].filter(isEvent);
    // The ways the other services name what an events consumer takes: its definitions, a research report's type, a webhook durable's definition.
    const naming = [/\bdefinitions:\s*\[([^\]]*)\]/g, /extends ResearchReportConsumer<typeof (\w+)>/g, /\bdefinition:\s*([A-Z]\w*)/g];
    for (const { name: service } of SERVICES.filter((candidate) => candidate.name !== 'coordinator')) {
      const names = sourceFilesOf(service)
        .filter((text) => /stream:\s*STREAMS\.events\.name|extends ResearchReportConsumer</.test(text))
        .flatMap((text) => naming.flatMap((pattern) => [...text.matchAll(pattern)].flatMap((match) => (match[1] ?? '').split(/[\s,]+/))));
      // Messaging's own event consumer takes what `@OnMessage` handlers name.
      const handled = sourceFilesOf(service).flatMap((text) => [...text.matchAll(/@OnMessage\(\s*([A-Z]\w*)/g)].map((match) => match[1] ?? ''));
      const events = [...new Set([...names, ...handled].map((name) => definitionByName.get(name)).filter(isEvent))];
      if (events.length > 0) taken[service] = events;
    }
    const subjects = (table: Readonly<Record<string, readonly AnyMessageDefinition[]>>): Record<string, string[]> =>
      Object.fromEntries(Object.entries(table).map(([service, definitions]) => [service, definitions.map((definition) => definition.subject).sort()]));
    expect(subjects(EVENTS_CONSUMED_BY)).toEqual(subjects(taken));
  });

  it('lists, for each service, exactly the messages its code subscribes to (both ways); it subscribes to those and its inboxes only', () => {
    const definitionByName = new Map(catalog.map((definition) => [exportNameOf(definition), definition] as const));
    const subscribed: Record<string, string[]> = {};
    for (const { name: service } of SERVICES) {
      const source = sourceOf(service);
      const listed = (names: string): string[] => names.split(/[\s,]+/).filter((name) => name !== '');
      // The ways code subscribes: a definition's subject, each of a list's (written out or named), a `CommandReplies` subclass's answers, the run-end abort.
      const names = [
        ...[...source.matchAll(/\.subscribe\(\s*([A-Z]\w*)\.subject/g)].map((match) => match[1] ?? ''),
        ...[...source.matchAll(/\[([A-Z][\w\s,]*)\]\.map\(\(definition\) =>\s*this\.nc\.subscribe\(definition\.subject/g)].flatMap((match) => listed(match[1] ?? '')),
        // A named list of definitions mapped to subscriptions (visual-search's step commands).
        ...[...source.matchAll(/\b([A-Z_]+)\.map\(\(definition\) =>\s*this\.nc\.subscribe\(definition\.subject/g)].flatMap((match) =>
          listed(new RegExp(`\\b${match[1] ?? ''} = \\[([^\\]]*)\\]`).exec(source)?.[1] ?? `unresolved ${match[1] ?? ''}`),
        ),
        ...[...source.matchAll(/\bsuper\(nc,\s*\[([^\]]*)\]/g)].flatMap((match) => listed(match[1] ?? '')),
        ...[...source.matchAll(/\bsuper\(nc,\s*([A-Z_]+)\b/g)].flatMap((match) => listed(new RegExp(`\\b${match[1] ?? ''} = \\[([^\\]]*)\\]`).exec(source)?.[1] ?? `unresolved ${match[1] ?? ''}`)),
        ...(/\babortOnRunEnded\(/.test(source) ? ['RunEnded'] : []),
      ];
      const subjects = [...new Set(names.map((name) => definitionByName.get(name)?.subject ?? `not a message: ${name}`))];
      if (subjects.length > 0) subscribed[service] = subjects.sort();
      expect(natsPermissionsOf(service).subscribe?.allow).toEqual(subscribableSubjectsOf(service));
    }
    expect(subscribed).toEqual(Object.fromEntries(Object.entries(SUBJECTS_SUBSCRIBED_BY).map(([service, definitions]) => [service, definitions.map((d) => d.subject).sort()])));
    // Not vacuous: the gateway's live run events and each kind of reply it waits for are found.
    expect(subscribed['gateway']?.length).toBeGreaterThan(10);
  });

  it('lets a service dead-letter only what its consumers take: its own commands (the coordinator its StartRun), the events it consumes', () => {
    for (const { name: service } of SERVICES) {
      const allowed = natsPermissionsOf(service).publish.allow ?? [];
      expect(allowed.filter((subject) => subject.startsWith('openpaw.dlq.'))).toEqual(deadLetterSubjectsOf(service));
      const takesCommands = [...lanesOfService(catalog, service)].some(([, commands]) => commands.length > 0) || service === 'coordinator';
      const expected = [...(takesCommands ? [`openpaw.dlq.cmd.${service}.>`] : []), ...(EVENTS_CONSUMED_BY[service] ?? []).map((d) => deadLetterSubjectOf(d.subject))];
      expect(deadLetterSubjectsOf(service)).toEqual(expected);
      expect(allowed).not.toContain('openpaw.dlq.>');
    }
  });

  it("names, for each service, the commands durables its code creates outside the lanes catalog (the coordinator's runtime), by their values in the source", () => {
    const created: Record<string, string[]> = {};
    for (const { name: service } of SERVICES) {
      const source = sourceOf(service);
      const durables = [...source.matchAll(/ensureConsumer\([^;]*?\bstream:\s*STREAMS\.commands\.name,\s*durable:\s*(\w+)/g)].map((match) => {
        const name = match[1] ?? '';
        // A literal in the source, or a name contracts export (directly or through a local alias).
        const literal = new RegExp(`\\bconst ${name}\\s*=\\s*'([^']+)'`).exec(source)?.[1];
        const alias = new RegExp(`\\bconst ${name}\\s*=\\s*([A-Z_]+);`).exec(source)?.[1] ?? name;
        const exported: unknown = (contracts as Record<string, unknown>)[alias];
        return literal ?? (typeof exported === 'string' ? exported : `unresolved ${name}`);
      });
      if (durables.length > 0) created[service] = durables;
    }
    expect(created).toEqual(OTHER_COMMAND_DURABLES_OF);
    expect(OTHER_COMMAND_DURABLES_OF['coordinator']).toEqual([COORDINATOR_COMMANDS_DURABLE]);
  });

  it('names, for each service, exactly the events durables its code creates: the coordinator one per context of its sagas, the others from EVENT_CONSUMERS (both ways)', () => {
    // The coordinator's runtime: one durable per context of its registry's inputs, named by its own function.
    const contexts = new Set(productionRegistry().all().flatMap((saga) => [...saga.inputs, ...(saga.amendedBy ?? [])].map((input) => input.context)));
    expect([...eventDurablesOf('coordinator')].sort()).toEqual([...contexts].map(coordinatorEventsDurable).sort());
    // The gateway's run projection names its durable and filter itself.
    expect([PROJECTION_DURABLE, PROJECTION_FILTER]).toEqual([EVENT_CONSUMERS.gateway.runProjection.durable, EVENT_CONSUMERS.gateway.runProjection.filterSubject]);
    const declared: Readonly<Record<string, Readonly<Record<string, unknown>>>> = EVENT_CONSUMERS;
    const used: Record<string, string[]> = {};
    const unnamed: string[] = [];
    for (const { name: service } of SERVICES.filter((candidate) => candidate.name !== 'coordinator')) {
      const files = sourceFilesOf(service);
      // Every file that makes an events consumer takes its durable from the table (the run projection compared above).
      for (const text of files.filter((file) => /stream:\s*STREAMS\.events\.name,\s*durable|extends ResearchReportConsumer</.test(file))) {
        if (!text.includes('EVENT_CONSUMERS.') && !text.includes('PROJECTION_DURABLE,') && !/durable: this\.durable/.test(text)) unnamed.push(`${service}: ${/export (?:abstract )?class (\w+)/.exec(text)?.[1] ?? text.slice(0, 80)}`);
      }
      const keys = files.flatMap((text) => [...text.matchAll(new RegExp(`EVENT_CONSUMERS\\.${service.replace('-', '\\-')}\\.(\\w+)`, 'g'))].map((match) => match[1] ?? ''));
      if (service === 'gateway') keys.push('runProjection');
      if (keys.length > 0) used[service] = [...new Set(keys)].sort();
    }
    expect(unnamed).toEqual([]);
    // Both ways: no declared consumer its service does not run (its permission would be unused).
    expect(used).toEqual(Object.fromEntries(Object.entries(declared).map(([service, consumers]) => [service, Object.keys(consumers).sort()])));
  });

  it('lists the JetStream API a service may use, never `$JS.API.>`: a consumer it may create or take from on the commands stream is one of its own durables', () => {
    const commands = STREAMS.commands.name;
    for (const { name: service } of SERVICES) {
      const allowed = natsPermissionsOf(service).publish.allow ?? [];
      // A wildcard in the API's verb only over a stream of its own KV buckets.
      const ownBucketApi = (subject: string): boolean => kvBucketsOf(service).some((bucket) => subject.split('.').includes(kvStreamName(bucket)));
      expect(allowed.filter((subject) => ['>', '$JS.>', '$JS.API.>', '$JS.ACK.>'].includes(subject) || (subject.startsWith('$JS.API.*') && !ownBucketApi(subject)))).toEqual([]);
      const consumerOps = allowed.filter((subject) => new RegExp(`^\\$JS\\.(API\\.CONSUMER\\.(DURABLE\\.CREATE|CREATE|MSG\\.NEXT|DELETE)|ACK)\\.${commands}\\b`).test(subject));
      const named = consumerOps.map((subject) => subject.split('.')[subject.startsWith('$JS.ACK.') ? 3 : subject.includes('.DURABLE.') || subject.includes('.MSG.') ? 6 : 5]);
      expect([...new Set(named)].sort()).toEqual([...commandDurablesOf(service)].sort());
      // On the events stream likewise: only its own durables, and no throwaway consumer.
      const eventOps = allowed.filter((subject) => new RegExp(`^\\$JS\\.(API\\.CONSUMER\\.[A-Z.]+|ACK)\\.${STREAMS.events.name}\\b`).test(subject) && !subject.includes('.LIST.'));
      expect([...new Set(eventOps.map((subject) => subject.replace(/\.>$/, '').split('.').at(-1)))].sort()).toEqual([...eventDurablesOf(service)].sort());
    }
  });
});
