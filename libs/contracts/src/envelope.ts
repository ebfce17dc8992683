import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AnyMessageDefinition, MessageData } from './message-definition.js';
import { messageValidations } from './validation-count.js';

/**
 * The envelope: a CloudEvents 1.0 event in JSON structured mode. `type` is the message's subject
 * (`openpaw.cmd.<service>.<Name>.v<N>`), `subject` the entity it concerns (usually the workflow run).
 * Extensions (CloudEvents names are lower-case alphanumerics): correlationid (the workflow run),
 * causationid (the message that caused this one), userid, traceparent/tracestate (distributed tracing).
 */
export const envelopeSchema = z.object({
  specversion: z.literal('1.0'),
  id: z.string().min(1),
  source: z.string().min(1),
  type: z.string().min(1),
  time: z.iso.datetime({ offset: true }),
  subject: z.string().min(1).optional(),
  datacontenttype: z.literal('application/json'),
  dataschema: z.url(),
  data: z.unknown(),
  correlationid: z.string().min(1),
  causationid: z.string().min(1).optional(),
  userid: z.string().min(1).optional(),
  traceparent: z
    .string()
    .regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
    .optional(),
  tracestate: z.string().optional(),
});

export type Envelope<T = unknown> = Omit<z.infer<typeof envelopeSchema>, 'data'> & { data: T };

export interface EnvelopeMeta {
  /** Message id; becomes the JetStream Nats-Msg-Id. Derive it from an idempotency key where one exists. */
  readonly id?: string;
  /** `/openpaw/<service>` of the publisher. */
  readonly source: string;
  readonly correlationId: string;
  readonly causationId?: string;
  readonly userId?: string;
  readonly subject?: string;
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly time?: Date;
}

/** Builds an envelope, validating `data` against the message's schema (a bug if it fails). */
export function createEnvelope<D extends AnyMessageDefinition>(
  definition: D,
  data: MessageData<D>,
  meta: EnvelopeMeta,
): Envelope<MessageData<D>> {
  messageValidations.count += 1;
  return envelopeOfValidData(definition, (definition.schema as z.ZodType).parse(data) as MessageData<D>, meta);
}

/**
 * Builds an envelope around data validated already (a kept reply, parsed when it was kept): no
 * second parse on the way out. Consumers validate every message on the way in.
 */
export function envelopeOfValidData<D extends AnyMessageDefinition>(
  definition: D,
  data: MessageData<D>,
  meta: EnvelopeMeta,
): Envelope<MessageData<D>> {
  return {
    specversion: '1.0',
    id: meta.id ?? randomUUID(),
    source: meta.source,
    type: definition.subject,
    time: (meta.time ?? new Date()).toISOString(),
    ...(meta.subject === undefined ? {} : { subject: meta.subject }),
    datacontenttype: 'application/json',
    dataschema: definition.dataschema,
    data,
    correlationid: meta.correlationId,
    ...(meta.causationId === undefined ? {} : { causationid: meta.causationId }),
    ...(meta.userId === undefined ? {} : { userid: meta.userId }),
    ...(meta.traceparent === undefined ? {} : { traceparent: meta.traceparent }),
    ...(meta.tracestate === undefined ? {} : { tracestate: meta.tracestate }),
  };
}

export type EnvelopeParseResult<T> =
  | { readonly ok: true; readonly envelope: Envelope<T> }
  | { readonly ok: false; readonly reason: string };

/** Parses raw bytes into an envelope of `definition`, with a readable reason on failure. */
export function parseEnvelope<D extends AnyMessageDefinition>(
  definition: D,
  raw: Uint8Array | string,
): EnvelopeParseResult<MessageData<D>> {
  const json = jsonOf(raw);
  return json.ok ? parseEnvelopeJson(definition, json.value) : json;
}

/** `parseEnvelope` of a body its reader has already turned into JSON (to look at it before validating it). */
export function parseEnvelopeJson<D extends AnyMessageDefinition>(definition: D, json: unknown): EnvelopeParseResult<MessageData<D>> {
  const read = envelopeOfJson(definition.subject, json);
  if (!read.ok) return read;
  const data = (definition.schema as z.ZodType).safeParse(read.envelope.data);
  if (!data.success) return { ok: false, reason: `invalid data for ${definition.subject}: ${z.prettifyError(data.error)}` };
  return { ok: true, envelope: { ...read.envelope, data: data.data as MessageData<D> } };
}

/**
 * Raw bytes to an envelope of `subject` whose data is not checked yet (counted as one validation):
 * what every parser of a message does first, before it checks the data its own way.
 */
export function readEnvelopeOf(subject: string, raw: Uint8Array | string): EnvelopeParseResult<unknown> {
  const json = jsonOf(raw);
  return json.ok ? envelopeOfJson(subject, json.value) : json;
}

const utf8 = new TextDecoder();

/** A message body as JSON, or why it is not JSON (the reason an unreadable message is logged with). */
export function jsonOf(raw: Uint8Array | string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string } {
  try {
    return { ok: true, value: JSON.parse(typeof raw === 'string' ? raw : utf8.decode(raw)) };
  } catch (error) {
    return { ok: false, reason: `malformed JSON: ${(error as Error).message}` };
  }
}

function envelopeOfJson(subject: string, json: unknown): EnvelopeParseResult<unknown> {
  messageValidations.count += 1;
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return { ok: false, reason: `invalid envelope: ${z.prettifyError(envelope.error)}` };
  if (envelope.data.type !== subject) return { ok: false, reason: `type ${envelope.data.type} is not ${subject}` };
  return { ok: true, envelope: envelope.data };
}
