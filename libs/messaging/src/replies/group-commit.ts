/**
 * PostgreSQL error classes that no retry can fix: 22 (data exception: a value the column cannot
 * hold, a `\u0000` in text) and 23 (integrity constraint violation). An input failing with one is a
 * poison input: it fails alone, at once, with its reason (ADR 0002).
 */
export function isPermanentDatabaseError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: requests made while a round trip is in flight (or in the same turn of the event
 * loop) go to the database together in the next one, so N concurrent deliveries cost one statement
 * (and one commit) instead of N. A batch that fails on a permanent error (`isPermanentDatabaseError`)
 * is split and each request runs alone: the poison one fails with its own reason, the rest succeed.
 */
export class GroupRunner<T, R> {
  readonly #queue: Waiting<T, R>[] = [];
  #running = false;
  #scheduled = false;

  constructor(
    private readonly runBatch: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxBatch = 256,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#running || this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    // Let the rest of this turn's requests (one network read's deliveries) join the batch.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#running = true;
    const batch = this.#queue.splice(0, this.maxBatch);
    try {
      await this.#settle(batch);
    } finally {
      this.#running = false;
      this.#schedule();
    }
  }

  async #settle(batch: readonly Waiting<T, R>[]): Promise<void> {
    let results: readonly R[];
    try {
      results = await this.runBatch(batch.map((waiting) => waiting.item));
    } catch (error) {
      if (batch.length > 1 && isPermanentDatabaseError(error)) {
        for (const waiting of batch) await this.#settle([waiting]);
      } else {
        for (const waiting of batch) waiting.reject(error);
      }
      return;
    }
    batch.forEach((waiting, i) => {
      if (i < results.length) waiting.resolve(results[i] as R);
      else waiting.reject(new Error(`group of ${batch.length} answered ${results.length} results`));
    });
  }
}
