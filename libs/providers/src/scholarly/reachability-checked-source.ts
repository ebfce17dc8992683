import type { Clock } from '../shared/clock.js';
import { ProviderError } from '../llm/errors.js';
import type { QueryExpressiveness, ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlySourceName } from './port.js';

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
}

type Verdict = { readonly reachable: true; readonly untilMs: number } | { readonly reachable: false; readonly untilMs: number; readonly why: string };

/**
 * A remote source behind a reachability probe and a response cache, per process. The first search
 * probes the API's host (`ScholarlySource.probe`: a cheap GET through the source's own rate limiter,
 * a short timeout); the verdict is cached, and concurrent searches share one probe. While the source
 * is unreachable a search fails at once with `network` and a message saying the source could not be
 * reached, so the run reports it per source instead of a silent 0 or a search waiting out its deadline.
 * A search that fails with `network` forgets the verdict (the next one probes again). Successful
 * results are cached for `responseTtlMs` (the sources ask clients to avoid repeating identical requests).
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
    const key = cacheKey(query);
    const now = this.options.clock.now();
    const cached = this.responses.get(key);
    if (cached !== undefined && cached.untilMs > now) return { ...cached.result, requests: 0 };
    const verdict = await this.check();
    if (!verdict.reachable) {
      const retryInS = Math.max(1, Math.ceil((verdict.untilMs - this.options.clock.now()) / 1000));
      throw new ProviderError('network', this.name, `${this.name} could not be reached (${verdict.why}); not searched, probed again in ${retryInS} s`);
    }
    try {
      const result = await this.inner.search(query);
      this.remember(key, result);
      return result;
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'network') this.verdict = null;
      throw error;
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

  private remember(key: string, result: ScholarlySearchResult): void {
    if (this.options.responseTtlMs <= 0 || this.options.maxCachedResponses <= 0) return;
    this.responses.delete(key);
    this.responses.set(key, { result, untilMs: this.options.clock.now() + this.options.responseTtlMs });
    while (this.responses.size > this.options.maxCachedResponses) this.responses.delete(this.responses.keys().next().value!);
  }
}

/** Everything of a query that changes what the source answers (not its abort signal). */
function cacheKey(query: ScholarlyQuery): string {
  const { signal: _signal, ...asked } = query;
  return JSON.stringify(asked);
}
