/**
 * A map that keeps at most `capacity` entries, dropping the least recently used first: `get` and
 * `set` make an entry the most recent. A Map keeps insertion order, so the oldest is its first key
 * and a use is a delete and a re-insert (constant time).
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`an LRU map holds at least one entry, got ${capacity}`);
  }

  /** The value of `key`, made the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value of `key` without counting it as a use. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `value` as the most recently used, dropping the least recently used beyond the capacity. */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.capacity) break;
      this.#entries.delete(oldest);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Drops every entry whose key `matches` (e.g. every client of a rotated API key). */
  deleteWhere(matches: (key: K) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (matches(key)) this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
