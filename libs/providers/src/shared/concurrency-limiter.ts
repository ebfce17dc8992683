/**
 * Concurrency limits keyed like Inngest's concurrency keys: a call names the keys it counts against
 * (`provider:openai`, `provider:openai:user:u1`, ...) each with its limit, and runs once it holds a
 * slot of every key; waiters are served first come, first served. Keys are acquired in one fixed
 * order, the most specific first (more `:` segments), so two calls can never hold one key each and wait
 * for the other's, and a call queued on its own narrow key holds no slot of the shared one meanwhile.
 */
export interface ConcurrencyKey {
  readonly key: string;
  readonly limit: number;
}

function moreSpecificFirst(a: ConcurrencyKey, b: ConcurrencyKey): number {
  return b.key.split(':').length - a.key.split(':').length || a.key.localeCompare(b.key);
}

interface Slot {
  inUse: number;
  readonly waiting: (() => void)[];
}

export class ConcurrencyLimiter {
  readonly #slots = new Map<string, Slot>();

  /** Runs `fn` holding a slot of every key; rejects with the signal's reason if aborted while waiting. */
  async run<T>(keys: readonly ConcurrencyKey[], fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const ordered = [...keys].filter((k) => Number.isFinite(k.limit) && k.limit > 0).sort(moreSpecificFirst);
    const held: string[] = [];
    try {
      for (const { key, limit } of ordered) {
        await this.#acquire(key, limit, signal);
        held.push(key);
      }
      return await fn();
    } finally {
      for (const key of held.reverse()) this.#release(key);
    }
  }

  /** Calls running and waiting under `key` (for metrics and tests). */
  usage(key: string): { readonly inUse: number; readonly waiting: number } {
    const slot = this.#slots.get(key);
    return { inUse: slot?.inUse ?? 0, waiting: slot?.waiting.length ?? 0 };
  }

  async #acquire(key: string, limit: number, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const slot = this.#slots.get(key) ?? { inUse: 0, waiting: [] };
    this.#slots.set(key, slot);
    if (slot.inUse < limit && slot.waiting.length === 0) {
      slot.inUse += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = slot.waiting.indexOf(grant);
        if (index >= 0) slot.waiting.splice(index, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted while waiting for a concurrency slot'));
      };
      slot.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #release(key: string): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    const next = slot.waiting.shift();
    if (next !== undefined) {
      next(); // the slot passes to the next waiter
      return;
    }
    slot.inUse -= 1;
    if (slot.inUse === 0) this.#slots.delete(key);
  }
}
