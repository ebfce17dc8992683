import type { z } from 'zod';
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
): MessageDefinition<K, C, N, V, S> {
  return {
    kind,
    context,
    name,
    version,
    schema,
    description,
    subject: subjectOf(kind, context, name, version),
    dataschema: `${SCHEMA_BASE_URI}${schemaPathOf(kind, context, name, version)}`,
  };
}

/** An imperative message with exactly one consumer: the service named by `service`. */
export function defineCommand<C extends string, N extends string, V extends number, S extends z.ZodType>(
  service: C,
  name: N,
  version: V,
  schema: S,
  description: string,
): MessageDefinition<'cmd', C, N, V, S> {
  return define('cmd', service, name, version, schema, description);
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
