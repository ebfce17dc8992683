import { createHash } from 'node:crypto';
import { LruMap } from '@openpaw/contracts';

/** How a cache names an API key: its sha256, so a raw key is never a map key (nor in a heap dump's keys). */
export function apiKeyDigest(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** Clients kept per adapter: a few models × the keys of the users active at once. */
export const DEFAULT_SDK_CLIENT_CAPACITY = 256;

/** Every cache in this process, so a deleted or rotated key leaves all of them (`forgetApiKey`). */
const caches = new Set<SdkClientCache<unknown>>();

/**
 * Forgets the clients of `apiKey` in every cache of this process: called when a user's key is
 * deleted or replaced, so its client (which holds the key) is not kept until the LRU drops it.
 */
export function forgetApiKey(apiKey: string): void {
  const digest = apiKeyDigest(apiKey);
  for (const cache of caches) cache.forgetDigest(digest);
}

/**
 * SDK clients cached per model and per API key (by digest), least recently used first out: a client
 * holds its connection pool and parsed configuration, so a call reuses its key's client instead of
 * building one. `create` is called once per (model, key) while cached; a client that failed to be
 * created is not kept.
 */
export class SdkClientCache<C> {
  readonly #clients: LruMap<string, Promise<C>>;

  constructor(
    private readonly create: (apiKey: string) => Promise<C>,
    capacity = DEFAULT_SDK_CLIENT_CAPACITY,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`an SDK client cache holds at least one client, got ${capacity}`);
    this.#clients = new LruMap(capacity);
    caches.add(this);
  }

  /** The client of `model` with `apiKey`, created on first use. */
  client(model: string, apiKey: string): Promise<C> {
    const key = `${apiKeyDigest(apiKey)}\u0000${model}`;
    const cached = this.#clients.get(key);
    if (cached !== undefined) return cached;
    const created = this.create(apiKey);
    this.#clients.set(key, created);
    created.catch(() => {
      if (this.#clients.peek(key) === created) this.#clients.delete(key);
    });
    return created;
  }

  /** Drops every client of the key whose digest this is (see `forgetApiKey`). */
  forgetDigest(digest: string): void {
    this.#clients.deleteWhere((key) => key.startsWith(`${digest}\u0000`));
  }

  /** Clients held (for tests and metrics). */
  get size(): number {
    return this.#clients.size;
  }
}
