import type { KV } from '@nats-io/kv';

/**
 * A KV bucket, or how to open it on first use: the open is shared by concurrent callers, and a failed
 * one is forgotten so the next call tries again (the bucket may not be provisioned yet, or JetStream
 * may be down).
 */
export function kvBucketHandle(bucket: KV | (() => Promise<KV>)): () => Promise<KV> {
  if (typeof bucket !== 'function') return () => Promise.resolve(bucket);
  let opened: Promise<KV> | undefined;
  return () => {
    opened ??= bucket().catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
}
