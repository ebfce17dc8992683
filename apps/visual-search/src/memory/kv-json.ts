import type { KV, KvEntry } from '@nats-io/kv';

/** A live value: a missing key, a delete marker and a purge all read as absent. */
function live(entry: KvEntry | null): KvEntry | undefined {
  return entry === null || entry.operation !== 'PUT' ? undefined : entry;
}

export async function getJson<T>(kv: KV, key: string): Promise<T | undefined> {
  const entry = live(await kv.get(key));
  return entry === undefined ? undefined : entry.json<T>();
}

export async function putJson(kv: KV, key: string, value: unknown): Promise<void> {
  await kv.put(key, JSON.stringify(value));
}

/**
 * Read-modify-write with compare-and-set: `create` when the key is absent (or expired), `update` at
 * the read revision otherwise; a lost race re-reads and retries.
 */
export async function mergeJson<T>(kv: KV, key: string, merge: (current: T | undefined) => T, attempts = 20): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const entry = live(await kv.get(key));
    const value = JSON.stringify(merge(entry === undefined ? undefined : entry.json<T>()));
    try {
      if (entry === undefined) await kv.create(key, value);
      else await kv.update(key, value, entry.revision);
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
  }
}
