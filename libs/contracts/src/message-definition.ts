import type { z } from 'zod';
import { CRITICAL_LANE, type Lane, assertLaneName } from './lanes.js';
import { type MessageKind, type Subject, schemaPathOf, SCHEMA_BASE_URI, subjectOf } from './subjects.js';

/** One message of the catalog: its zod schema is the only hand-written contract. */
export interface MessageDefinition<
  K extends MessageKind = MessageKind,
  C extends string = string,
  N extends string = string,
  V extends number = number,
  S extends z.ZodType = z.ZodType,
> {
  readonly kind: K;
  readonly context: C;
  readonly name: N;
  readonly version: V;
  readonly subject: Subject<K, C, N, V>;
  readonly schema: S;
  readonly description: string;
  /** URI of the generated JSON Schema (the CloudEvents `dataschema`). */
  readonly dataschema: string;
  /**
   * Commands only: the lane the owning service consumes it on (its own durable consumer and
   * concurrency), so background work never queues ahead of critical-path commands. See `lanes.ts`.
   */
  readonly lane?: Lane;
  /**
   * Events only: the subject of the version that replaces this one. A superseded version is still produced
   * beside its successor for subscribers that have not moved (contracts/README.md), and OpenPaw's own
   * consumers read the successor only.
   */
  readonly supersededBy?: string;
  /**
   * Batched commands only (`defineBatchCommand`): the schemas a consumer validates a batch with item by
   * item, so that one bad item fails alone (`parseBatchEnvelope`).
   */
  readonly batch?: BatchSchemas;
}

/** A batched command's shell (shared fields, items only needing an `itemId`) and its one item. */
export interface BatchSchemas {
  readonly shell: z.ZodType;
  readonly item: z.ZodType;
  readonly maxItems: number;
}

// The catalog is heterogeneous; `any` here only widens the schema parameter for collections.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMessageDefinition = MessageDefinition<MessageKind, string, string, number, any>;

export type MessageData<D extends AnyMessageDefinition> = z.infer<D['schema']>;

function define<K extends MessageKind, C extends string, N extends string, V extends number, S extends z.ZodType>(
  kind: K,
  context: C,
  name: N,
  version: V,
  schema: S,
  description: string,
  extra: { readonly lane?: Lane; readonly supersededBy?: string; readonly batch?: BatchSchemas } = {},
): MessageDefinition<K, C, N, V, S> {
  return {
    kind,
    ...(extra.batch === undefined ? {} : { batch: extra.batch }),
    ...(extra.lane === undefined ? {} : { lane: extra.lane }),
    ...(extra.supersededBy === undefined ? {} : { supersededBy: extra.supersededBy }),
    context,
    name,
    version,
    schema,
    description,
    subject: subjectOf(kind, context, name, version),
    dataschema: `${SCHEMA_BASE_URI}${schemaPathOf(kind, context, name, version)}`,
  };
}

export interface CommandOptions {
  /** Default `critical`: a step some user waits for. Background work names its own lane (`video`, `background`). */
  readonly lane?: Lane;
}

/** An imperative message with exactly one consumer: the service named by `service`, on the command's lane. */
export function defineCommand<C extends string, N extends string, V extends number, S extends z.ZodType>(
  service: C,
  name: N,
  version: V,
  schema: S,
  description: string,
  options: CommandOptions = {},
): MessageDefinition<'cmd', C, N, V, S> {
  return define('cmd', service, name, version, schema, description, { lane: assertLaneName(options.lane ?? CRITICAL_LANE) });
}

export interface EventOptions {
  /** The newer version of this event (same context and name): this one becomes deprecated. */
  readonly supersededBy?: AnyMessageDefinition;
}

/** A past-tense fact; any number of consumers. */
export function defineEvent<C extends string, N extends string, V extends number, S extends z.ZodType>(
  context: C,
  name: N,
  version: V,
  schema: S,
  description: string,
  options: EventOptions = {},
): MessageDefinition<'evt', C, N, V, S> {
  const successor = options.supersededBy;
  if (successor !== undefined && (successor.context !== context || successor.name !== name || successor.version <= version)) {
    throw new Error(`evt ${context}.${name}.v${version}: supersededBy must be a later version of the same event, got ${successor.subject}`);
  }
  return define('evt', context, name, version, schema, description, successor === undefined ? {} : { supersededBy: successor.subject });
}
