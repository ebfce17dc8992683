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
  lane?: Lane,
): MessageDefinition<K, C, N, V, S> {
  return {
    kind,
    ...(lane === undefined ? {} : { lane }),
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
  return define('cmd', service, name, version, schema, description, assertLaneName(options.lane ?? CRITICAL_LANE));
}

/** A past-tense fact; any number of consumers. */
export function defineEvent<C extends string, N extends string, V extends number, S extends z.ZodType>(
  context: C,
  name: N,
  version: V,
  schema: S,
  description: string,
): MessageDefinition<'evt', C, N, V, S> {
  return define('evt', context, name, version, schema, description);
}
