import { z } from 'zod';
import { type Envelope, readEnvelopeOf } from './envelope.js';
import { type AnyMessageDefinition, type BatchSchemas, type CommandOptions, defineCommand, type MessageDefinition } from './message-definition.js';

/**
 * Batched commands (ADR 0025): one command carrying N items of one kind for one service, beside the
 * one-item command it batches. Each item has its own id (`itemId`: the id the one-item command would
 * have had), which is what the service de-duplicates by and what its per-item replies carry as
 * `commandId`; the envelope id only names the delivery. A consumer validates the shared fields once
 * and each item alone, so one bad item is dead-lettered by itself and its neighbours still run.
 */

/** The id every item of a batch carries. */
export const batchItemId = z.uuid();

export type BatchItemShape<I extends z.ZodRawShape> = z.ZodObject<{ itemId: typeof batchItemId } & I>;
export type BatchShape<S extends z.ZodRawShape, I extends z.ZodRawShape> = z.ZodObject<S & { items: z.ZodArray<BatchItemShape<I>> }>;

export type BatchCommandDefinition<C extends string = string, N extends string = string, V extends number = number, S extends z.ZodRawShape = z.ZodRawShape, I extends z.ZodRawShape = z.ZodRawShape> = MessageDefinition<
  'cmd',
  C,
  N,
  V,
  BatchShape<S, I>
> & { readonly batch: BatchSchemas };

// A collection of batch definitions erases their shapes, as AnyMessageDefinition does.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyBatchCommandDefinition = BatchCommandDefinition<string, string, number, any, any>;

/** One item of a batched command's data (with its `itemId`). */
export type BatchItemOf<D extends AnyBatchCommandDefinition> = z.infer<D['schema']> extends { readonly items: readonly (infer T)[] } ? T : never;
/** The fields a batched command's items share. */
export type BatchSharedOf<D extends AnyBatchCommandDefinition> = Omit<z.infer<D['schema']>, 'items'>;

const distinctItemIds = (items: readonly unknown[]): boolean => new Set(items.map((i) => (i as { readonly itemId: string }).itemId)).size === items.length;

/**
 * A command carrying up to `maxItems` items: `shared` fields once, `item` fields per item (plus its
 * `itemId`). Its JSON Schema and AsyncAPI entry are the full shape; consumers parse it with
 * `parseBatchEnvelope`.
 */
export function defineBatchCommand<C extends string, N extends string, V extends number, S extends z.ZodRawShape, I extends z.ZodRawShape>(
  service: C,
  name: N,
  version: V,
  shapes: { readonly shared: S; readonly item: I; readonly maxItems: number },
  description: string,
  options: CommandOptions = {},
): BatchCommandDefinition<C, N, V, S, I> {
  const item = z.object({ itemId: batchItemId, ...shapes.item }) as BatchItemShape<I>;
  const items = z.array(item).min(1).max(shapes.maxItems).refine(distinctItemIds, 'each itemId at most once');
  const schema = z.object({ ...shapes.shared, items }) as unknown as BatchShape<S, I>;
  const looseItems = z
    .array(z.looseObject({ itemId: batchItemId }))
    .min(1)
    .max(shapes.maxItems)
    .refine(distinctItemIds, 'each itemId at most once');
  const shell = z.object({ ...shapes.shared, items: looseItems });
  return { ...defineCommand(service, name, version, schema, description, options), batch: { shell, item, maxItems: shapes.maxItems } };
}

export function isBatchCommand(definition: AnyMessageDefinition): definition is AnyBatchCommandDefinition {
  return definition.batch !== undefined;
}

/** An item a consumer could not accept: its id, its raw form and why. */
export interface RejectedBatchItem {
  readonly itemId: string;
  readonly item: unknown;
  readonly reason: string;
}

export type BatchParseResult<D> =
  | { readonly ok: true; readonly envelope: Envelope<D>; readonly rejected: readonly RejectedBatchItem[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses a batched command: the envelope and the shared fields must be valid (else the whole message
 * is refused, as `parseEnvelope` refuses), then each item alone. The envelope returned holds the
 * valid items (possibly none); the others come back as `rejected`, each with its reason.
 */
export function parseBatchEnvelope<D extends AnyBatchCommandDefinition>(definition: D, raw: Uint8Array | string): BatchParseResult<z.infer<D['schema']>> {
  const read = readEnvelopeOf(definition.subject, raw);
  if (!read.ok) return read;
  const shell = definition.batch.shell.safeParse(read.envelope.data);
  if (!shell.success) return { ok: false, reason: `invalid data for ${definition.subject}: ${z.prettifyError(shell.error)}` };
  const { items: rawItems, ...shared } = shell.data as { items: { itemId: string }[] } & Record<string, unknown>;
  const valid: unknown[] = [];
  const rejected: RejectedBatchItem[] = [];
  for (const raw of rawItems) {
    const item = definition.batch.item.safeParse(raw);
    if (item.success) valid.push(item.data);
    else rejected.push({ itemId: raw.itemId, item: raw, reason: `invalid item ${raw.itemId} of ${definition.subject}: ${z.prettifyError(item.error)}` });
  }
  return { ok: true, envelope: { ...read.envelope, data: { ...shared, items: valid } as z.infer<D['schema']> }, rejected };
}

/** The one-item form of a batch (a re-send, a dead letter): the same shared fields and envelope, `item` alone. */
export function oneItemBatch<T extends { readonly items: readonly unknown[] }>(envelope: Envelope<T>, item: T['items'][number], id: string = envelope.id): Envelope<T> {
  return { ...envelope, id, data: { ...envelope.data, items: [item] } };
}
