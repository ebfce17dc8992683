import type { AnyBatchCommandDefinition, BatchItemOf, BatchSharedOf } from '@openpaw/contracts';
import type { Effect, JsonObject, SendTimeout } from './definition.js';

/** One item of a batch as a definition builds it: its step key and fields (the engine adds its `itemId`). */
export interface BatchItemOfEffect<M extends AnyBatchCommandDefinition> {
  readonly key: string;
  readonly data: Omit<BatchItemOf<M>, 'itemId'>;
  readonly timeout?: SendTimeout;
}

/**
 * The `sendBatch` effect (ADR 0025) of the items of one kind a decision sends to one service, typed by
 * the batched command; nothing when there is no item.
 */
export function sendBatch<M extends AnyBatchCommandDefinition>(message: M, shared: BatchSharedOf<M>, items: readonly BatchItemOfEffect<M>[]): Effect[] {
  if (items.length === 0) return [];
  return [
    {
      type: 'sendBatch',
      message,
      shared,
      items: items.map((item) => ({ key: item.key, data: item.data as JsonObject, ...(item.timeout === undefined ? {} : { timeout: item.timeout }) })),
    },
  ];
}
