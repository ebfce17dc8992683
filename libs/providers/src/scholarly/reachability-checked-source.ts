import type { Clock } from '../shared/clock.js';
import { ProviderError } from '../llm/errors.js';
import type { QueryExpressiveness, ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlySourceName } from './port.js';
import { responseCacheKey, type SharedResponses } from './response-cache.js';

export interface ReachabilityOptions {
  /** The probe's own timeout: short, so an unreachable source costs a search seconds, not its whole deadline. */
  readonly probeTimeoutMs: number;
  /** How long "reachable" is believed before the next probe. */
  readonly reachableTtlMs: number;
  /** How long "unreachable" is believed: searches meanwhile fail at once, saying why. */
  readonly unreachableTtlMs: number;
  /** How long one search's result is answered from memory (same query, same limit); 0 keeps none. */
  readonly responseTtlMs: number;
  /** Results kept at most (least recently stored dropped first). */
  readonly maxCachedResponses: number;
  readonly clock: Pick<Clock, 'now'>;
  /** Results shared with the service's other replicas, behind the in-process ones (see `SharedResponseCache`). */
  readonly sharedResponses?: SharedResponses;
}

const DEFAULT_SHARED_TIMEOUT_MS = 1_000;
const DEFAULT_CLAIM_MS = 5_000;
const DEFAULT_CLAIM_POLL_MS = 100;

/** One search's use of the shared cache: whether it has failed it yet. */
interface SharedAttempt {
  unavailable: boolean;
}

/** What a search that missed both caches does: answer another replica's result, or fetch (releasing its claim, if any, after). */
type MissPlan = { readonly answer: ScholarlySearchResult } | { readonly answer?: undefined; readonly release?: () => Promise<void> };

type Verdict = { readonly reachable: true; readonly untilMs: number } | { readonly reachable: false; readonly untilMs: number; readonly why: string };

/**
 * A remote source behind a reachability probe and a response cache, per process. The first search
 * probes the API's host (`ScholarlySource.probe`: a cheap GET through the source's own rate limiter,
 * a short timeout); the verdict is cached, and concurrent searches share one probe. While the source
 * is unreachable a search fails at once with `network` and a message saying the source could not be
 * reached, so the run reports it per source instead of a silent 0 or a search waiting out its deadline.
 * A search that fails with `network` forgets the verdict (the next one probes again). Successful
 * results are cached for `responseTtlMs` (the sources ask clients to avoid repeating identical requests):
 * in process first (a hit costs nothing), then in the replicas' shared cache when there is one (a hit
 * there skips the probe and the request). Replicas missing the same search at once fetch it once: the
 * first claims the fetch in the shared cache, the others wait (at most the claim's life, `claimMs`)
 * for its answer there, and fetch themselves when it does not come. The shared cache is best effort:
 * a miss, an error or a call slower than its timeout is a fetch, never a failed search.
 */
export class ReachabilityCheckedSource implements ScholarlySource {
  readonly name: ScholarlySourceName;
  readonly local = false;
  readonly expresses: QueryExpressiveness | undefined;
  private verdict: Verdict | null = null;
  private probing: Promise<Verdict> | null = null;
  private readonly responses = new Map<string, { readonly result: ScholarlySearchResult; readonly untilMs: number }>();

  constructor(
    private readonly inner: ScholarlySource & Required<Pick<ScholarlySource, 'probe'>>,
    private readonly options: ReachabilityOptions,
  ) {
    this.name = inner.name;
    this.expresses = inner.expresses;
  }

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const key = responseCacheKey(this.name, query);
    const cached = this.responses.get(key);
    if (cached !== undefined && cached.untilMs > this.options.clock.now()) return { ...cached.result, requests: 0 };
    // Once the shared cache has failed this search, the search does not ask it again (an outage costs it one timeout).
    const attempt: SharedAttempt = { unavailable: false };
    const shared = await this.sharedGet(key, attempt);
    if (shared.answer !== undefined) return { ...shared.answer, requests: 0 };
    const plan = await this.claimOrWait(key, query.signal, attempt, shared.revision);
    if (plan.answer !== undefined) return { ...plan.answer, requests: 0 };
    try {
      return await this.fetch(key, query, attempt);
    } finally {
      await plan.release?.();
    }
  }

  private async fetch(key: string, query: ScholarlyQuery, attempt: SharedAttempt): Promise<ScholarlySearchResult> {
    const verdict = await this.check();
    if (!verdict.reachable) {
      const retryInS = Math.max(1, Math.ceil((verdict.untilMs - this.options.clock.now()) / 1000));
      throw new ProviderError('network', this.name, `${this.name} could not be reached (${verdict.why}); not searched, probed again in ${retryInS} s`);
    }
    try {
      const result = await this.inner.search(query);
      const untilMs = this.remember(key, result);
      if (untilMs !== undefined) await this.sharedSet(key, result, untilMs, attempt);
      return result;
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'network') this.verdict = null;
      throw error;
    }
  }

  /**
   * Claims the fetch of `key` in the shared cache; while another replica's claim stands, looks for its
   * answer every `claimPollMs`, taking the claim over when it is released (its fetch failed) or lapses.
   * Gives up waiting after `claimMs` from first seeing the claim (the claimant is slow or gone), taking
   * the claim over if it has stood unchanged that long, or when the search is aborted, and fetches
   * (without a claim if it could not take one); so does a cache that cannot be used or has no claims.
   */
  private async claimOrWait(key: string, signal: AbortSignal | undefined, attempt: SharedAttempt, missedRevision: number | undefined): Promise<MissPlan> {
    const shared = this.options.sharedResponses;
    const claim = shared?.cache.claim?.bind(shared.cache);
    if (shared === undefined || claim === undefined || this.options.responseTtlMs <= 0) return {};
    const claimMs = shared.claimMs ?? DEFAULT_CLAIM_MS;
    const pollMs = shared.claimPollMs ?? DEFAULT_CLAIM_POLL_MS;
    // Real time, not the injected clock: this bounds how long a search waits. It starts when the
    // standing claim is first seen, as the cache times the claim's lapse, so a waiter that waits a dead
    // claimant's claim out takes it over (and later searches need not wait on it).
    let giveUpAt: number | undefined;
    for (;;) {
      const claimed = await this.bestEffort(shared, attempt, () => claim(key, claimMs));
      if (claimed === undefined) return {};
      if (claimed.outcome === 'fetch') {
        const release = (): Promise<void> => this.bestEffort(shared, attempt, () => claimed.release()).then(() => undefined);
        // Another replica may have stored its answer and released its claim since this one missed.
        const { answer } = await this.sharedGet(key, attempt, missedRevision);
        if (answer === undefined) return { release };
        await release();
        return { answer };
      }
      giveUpAt ??= performance.now() + claimMs;
      const waitUntil = giveUpAt;
      if (performance.now() >= waitUntil || signal?.aborted === true) return {};
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, waitUntil - performance.now()))));
      const { answer } = await this.sharedGet(key, attempt, missedRevision);
      if (answer !== undefined) return { answer };
      // Past the wait, the next claim is the last: it takes over a claim seen unchanged for its life.
    }
  }

  /** One probe at a time, shared by every search waiting on it (so no caller's abort is its own: it lasts `probeTimeoutMs` at most). */
  private async check(): Promise<Verdict> {
    if (this.verdict !== null && this.verdict.untilMs > this.options.clock.now()) return this.verdict;
    this.probing ??= this.runProbe().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private async runProbe(): Promise<Verdict> {
    try {
      await this.inner.probe(this.options.probeTimeoutMs);
      this.verdict = { reachable: true, untilMs: this.options.clock.now() + this.options.reachableTtlMs };
    } catch (error) {
      const why = error instanceof ProviderError && error.kind === 'timeout' ? `no answer within ${this.options.probeTimeoutMs} ms` : error instanceof Error ? error.message : String(error);
      this.verdict = { reachable: false, untilMs: this.options.clock.now() + this.options.unreachableTtlMs, why };
    }
    return this.verdict;
  }

  /** Keeps `result` in process until `untilMs` (answered); undefined when nothing is cached (a TTL of 0). */
  private remember(key: string, result: ScholarlySearchResult, untilMs = this.options.clock.now() + this.options.responseTtlMs): number | undefined {
    if (this.options.responseTtlMs <= 0) return undefined;
    if (this.options.maxCachedResponses <= 0) return untilMs;
    this.responses.delete(key);
    this.responses.set(key, { result, untilMs });
    while (this.responses.size > this.options.maxCachedResponses) this.responses.delete(this.responses.keys().next().value!);
    return untilMs;
  }

  /**
   * A live answer another replica (or this one, earlier) stored, kept in process until it expires
   * there too; and the revision of what is stored, live or not (undefined when the store gives none).
   * An answer stored after `missedRevision` (what this search missed: 0 for nothing) was written while
   * this search waited, so it is live whatever its writer's clock stamped on it: that order is the
   * store's, not a clock's.
   */
  private async sharedGet(key: string, attempt: SharedAttempt, missedRevision?: number): Promise<{ readonly answer?: ScholarlySearchResult; readonly revision?: number }> {
    const shared = this.options.sharedResponses;
    if (shared === undefined || this.options.responseTtlMs <= 0) return {};
    const stored = await this.bestEffort(shared, attempt, () => shared.cache.get(key));
    if (stored === undefined) return { revision: 0 };
    const now = this.options.clock.now();
    const writtenSinceMiss = missedRevision !== undefined && stored.revision !== undefined && stored.revision > missedRevision;
    const revision = stored.revision === undefined ? {} : { revision: stored.revision };
    if (!writtenSinceMiss && stored.expiresAtMs <= now) return revision;
    // Never believed longer than this replica's own TTL, whatever the writer's was.
    this.remember(key, stored.result, writtenSinceMiss ? now + this.options.responseTtlMs : Math.min(stored.expiresAtMs, now + this.options.responseTtlMs));
    return { answer: stored.result, ...revision };
  }

  private async sharedSet(key: string, result: ScholarlySearchResult, expiresAtMs: number, attempt: SharedAttempt): Promise<void> {
    const shared = this.options.sharedResponses;
    if (shared === undefined) return;
    await this.bestEffort(shared, attempt, () => shared.cache.set(key, { result, expiresAtMs }));
  }

  /**
   * `call`'s answer, or undefined when it fails or outlasts the shared cache's timeout (`onUnavailable`
   * hears why, and the rest of the search skips the shared cache), or when it already failed this search.
   */
  private async bestEffort<T>(shared: SharedResponses, attempt: SharedAttempt, call: () => Promise<T>): Promise<T | undefined> {
    if (attempt.unavailable) return undefined;
    const timeoutMs = shared.timeoutMs ?? DEFAULT_SHARED_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        call(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the shared response cache did not answer within ${timeoutMs} ms`)), timeoutMs);
          timer.unref();
        }),
      ]);
    } catch (error) {
      attempt.unavailable = true;
      shared.onUnavailable?.(error);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
