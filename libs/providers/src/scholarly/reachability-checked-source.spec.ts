import { ProviderError } from '../llm/errors.js';
import type { ScholarlyQuery, ScholarlySearchResult, ScholarlySource } from './port.js';
import { ReachabilityCheckedSource } from './reachability-checked-source.js';
import { type CachedResponse, type FetchClaim, responseCacheKey, type SharedResponseCache } from './response-cache.js';

/** A source whose host is up or down as the test says, counting probes and searches. */
function scriptedSource() {
  const state = { up: true, probes: 0, searches: 0, searchFails: false, searchMs: 0 };
  const source: ScholarlySource & Required<Pick<ScholarlySource, 'probe'>> = {
    name: 'arxiv',
    local: false,
    expresses: { boolean: true, not: true, language: 'none' },
    probe: async () => {
      state.probes += 1;
      await Promise.resolve();
      if (!state.up) throw new ProviderError('network', 'arxiv', 'http://127.0.0.1:9 could not be reached: ECONNREFUSED');
    },
    search: async (query: ScholarlyQuery): Promise<ScholarlySearchResult> => {
      state.searches += 1;
      await new Promise((resolve) => setTimeout(resolve, state.searchMs));
      if (state.searchFails) throw new ProviderError('network', 'arxiv', 'socket hang up');
      return { works: [], totalAvailable: query.limit, requests: 1 };
    },
  };
  return { state, source };
}

const query = (text: string): ScholarlyQuery => ({ text, phrases: [text], limit: 3 });

/** A shared cache with claims, in memory, as the replicas of one service would share it. */
function claimingCache() {
  const stored = new Map<string, CachedResponse>();
  // When each claim lapses, by this process's clock (the fake is one process; the KV cache times sightings).
  const claims = new Map<string, { lapsesAtMs: number; token: number }>();
  let tokens = 0;
  const cache: SharedResponseCache & { claim: NonNullable<SharedResponseCache['claim']> } = {
    get: (key) => Promise.resolve(stored.get(key)),
    set: (key, response) => Promise.resolve(void stored.set(key, response)),
    claim: (key, lifeMs): Promise<FetchClaim> => {
      const standing = claims.get(key);
      if (standing !== undefined && standing.lapsesAtMs > performance.now()) return Promise.resolve({ outcome: 'held' });
      const token = (tokens += 1);
      claims.set(key, { lapsesAtMs: performance.now() + lifeMs, token });
      return Promise.resolve({ outcome: 'fetch', release: () => Promise.resolve(void (claims.get(key)?.token === token && claims.delete(key))) });
    },
  };
  return { stored, claims, cache };
}

describe('ReachabilityCheckedSource', () => {
  const clock = { t: 0, now: () => clock.t };
  const options = { probeTimeoutMs: 3_000, reachableTtlMs: 600_000, unreachableTtlMs: 60_000, responseTtlMs: 30_000, maxCachedResponses: 2, clock };
  beforeEach(() => {
    clock.t = 0;
  });

  it('probes once for concurrent searches and keeps the verdict for its TTL; keeps the inner source name and expressiveness', async () => {
    const { state, source } = scriptedSource();
    const checked = new ReachabilityCheckedSource(source, options);
    expect([checked.name, checked.local, checked.expresses]).toEqual(['arxiv', false, source.expresses]);
    await Promise.all([checked.search(query('a')), checked.search(query('b'))]);
    expect(state.probes).toBe(1);
    clock.t = 599_000;
    await checked.search(query('c'));
    expect(state.probes).toBe(1);
    clock.t = 601_000;
    await checked.search(query('d'));
    expect(state.probes).toBe(2);
  });

  it('fails every search at once while unreachable, saying so, and probes again after the shorter TTL', async () => {
    const { state, source } = scriptedSource();
    state.up = false;
    const checked = new ReachabilityCheckedSource(source, options);
    await expect(checked.search(query('a'))).rejects.toMatchObject({ kind: 'network', message: expect.stringMatching(/arxiv could not be reached \(.*ECONNREFUSED\); not searched, probed again in 60 s/) });
    clock.t = 30_000;
    await expect(checked.search(query('a'))).rejects.toMatchObject({ message: expect.stringContaining('probed again in 30 s') });
    expect([state.probes, state.searches]).toEqual([1, 0]);
    state.up = true;
    clock.t = 61_000;
    await expect(checked.search(query('a'))).resolves.toMatchObject({ requests: 1 });
    expect(state.probes).toBe(2);
  });

  it('forgets "reachable" when a search fails on the network (the next search probes again)', async () => {
    const { state, source } = scriptedSource();
    const checked = new ReachabilityCheckedSource(source, options);
    state.searchFails = true;
    await expect(checked.search(query('a'))).rejects.toMatchObject({ kind: 'network' });
    state.searchFails = false;
    await checked.search(query('a'));
    expect(state.probes).toBe(2);
  });

  it('answers an identical search from memory until its TTL, keeping at most the configured number of results', async () => {
    const { state, source } = scriptedSource();
    const checked = new ReachabilityCheckedSource(source, options);
    await checked.search(query('a'));
    expect(await checked.search(query('a'))).toMatchObject({ requests: 0, totalAvailable: 3 });
    expect(state.searches).toBe(1);
    await checked.search({ ...query('a'), limit: 4 });
    await checked.search(query('b'));
    await checked.search(query('c')); // at most 2 kept: both 'a' results are gone by now
    await checked.search(query('a'));
    expect(state.searches).toBe(5);
    clock.t = 31_000;
    await checked.search(query('a'));
    expect(state.searches).toBe(6);
  });

  it('asks the shared cache behind its own, skipping the probe on a shared hit, and never believes a shared entry past its own TTL', async () => {
    const { state, source } = scriptedSource();
    const stored = new Map<string, CachedResponse>();
    const cache: SharedResponseCache = { get: (key) => Promise.resolve(stored.get(key)), set: (key, response) => Promise.resolve(void stored.set(key, response)) };
    const writer = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache } });
    await writer.search(query('a'));
    expect([...stored.values()]).toEqual([{ result: { works: [], totalAvailable: 3, requests: 1 }, expiresAtMs: 30_000 }]);
    // Another replica (a longer TTL of its writer's) answers from the shared entry: no probe, no request.
    const reader = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache } });
    stored.set(responseCacheKey('arxiv', query('a')), { result: { works: [], totalAvailable: 3, requests: 1 }, expiresAtMs: 10_000_000 });
    await expect(reader.search(query('a'))).resolves.toMatchObject({ requests: 0 });
    expect([state.probes, state.searches]).toEqual([1, 1]);
    stored.clear();
    clock.t = 30_001;
    await expect(reader.search(query('a'))).resolves.toMatchObject({ requests: 1 });
  });

  it('fetches when the shared cache fails or hangs past its timeout, says why, and does not ask it again in that search', async () => {
    const { state, source } = scriptedSource();
    const why: unknown[] = [];
    const calls: string[] = [];
    const hanging: SharedResponseCache = {
      get: () => (calls.push('get'), new Promise(() => undefined)),
      set: () => (calls.push('set'), Promise.reject(new Error('no JetStream'))),
      claim: () => (calls.push('claim'), new Promise(() => undefined)),
    };
    const checked = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache: hanging, timeoutMs: 20, onUnavailable: (error) => why.push(error) } });
    await expect(checked.search(query('a'))).resolves.toMatchObject({ requests: 1 });
    expect(state.searches).toBe(1);
    // An outage costs a search one timeout, not one per call.
    expect(calls).toEqual(['get']);
    expect(why.map((e) => (e as Error).message)).toEqual(['the shared response cache did not answer within 20 ms']);

    const failingWrites = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache: { get: () => Promise.resolve(undefined), set: hanging.set }, onUnavailable: (error) => why.push(error) } });
    await expect(failingWrites.search(query('b'))).resolves.toMatchObject({ requests: 1 });
    expect(why.map((e) => (e as Error).message)).toEqual(['the shared response cache did not answer within 20 ms', 'no JetStream']);
  });

  it('fetches once for replicas missing the same search at once: the others wait for the claimant\'s answer', async () => {
    const { state, source } = scriptedSource();
    state.searchMs = 150;
    const { cache, claims } = claimingCache();
    const replicas = [0, 1, 2].map(() => new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache, claimPollMs: 10 } }));
    const answers = await Promise.all(replicas.map((replica) => replica.search(query('a'))));
    expect(state.searches).toBe(1);
    expect(answers.map((answer) => answer.requests).sort()).toEqual([0, 0, 1]);
    // The claim is released once the answer is shared.
    expect(claims.size).toBe(0);
  });

  it('a replica that missed just before the claimant stored its answer and released its claim answers that answer', async () => {
    const { state, source } = scriptedSource();
    const { cache } = claimingCache();
    const first = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache } });
    let misses = 1;
    // The late replica's first read was made before the claimant stored (JetStream answered it in that order).
    const late = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache: { ...cache, get: (key) => (misses-- > 0 ? Promise.resolve(undefined) : cache.get(key)) } } });
    await first.search(query('a'));
    await expect(late.search(query('a'))).resolves.toMatchObject({ requests: 0 });
    expect(state.searches).toBe(1);
  });

  it('a waiting replica fetches itself when the claimant fails (at once) or never answers (after the claim\'s life)', async () => {
    const { state, source } = scriptedSource();
    const { cache, claims } = claimingCache();
    const sharedResponses = { cache, claimMs: 3_000, claimPollMs: 10 };
    const failing = new ReachabilityCheckedSource({ ...source, search: () => new Promise((_, reject) => setTimeout(() => reject(new ProviderError('server_error', 'arxiv', 'HTTP 503')), 50)) }, { ...options, sharedResponses });
    const waiting = new ReachabilityCheckedSource(source, { ...options, sharedResponses });
    const failed = failing.search(query('a'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    let started = Date.now();
    const [failure, answer] = await Promise.allSettled([failed, waiting.search(query('a'))]);
    expect(failure).toMatchObject({ status: 'rejected', reason: { kind: 'server_error' } });
    expect(answer).toMatchObject({ status: 'fulfilled', value: { requests: 1 } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(state.searches).toBe(1);

    // A replica that claimed and died: its claim stands until it lapses; the waiter does not wait longer than a claim's life.
    const briefly = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { ...sharedResponses, claimMs: 300 } });
    claims.set(responseCacheKey('arxiv', query('b')), { lapsesAtMs: Number.POSITIVE_INFINITY, token: -1 });
    started = Date.now();
    await expect(briefly.search(query('b'))).resolves.toMatchObject({ requests: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a waiting replica takes an answer stored after the one it missed, whatever expiry its writer stamped; not the expired one it missed', async () => {
    const { state, source } = scriptedSource();
    const { cache, claims, stored } = claimingCache();
    const key = responseCacheKey('arxiv', query('a'));
    const answer = { works: [], totalAvailable: 0, requests: 1 };
    // What this replica misses: an answer expired by any clock. Another replica holds the claim.
    stored.set(key, { result: answer, expiresAtMs: clock.t - 1, revision: 7 });
    claims.set(key, { lapsesAtMs: Number.POSITIVE_INFINITY, token: -1 });
    const waiting = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache, claimMs: 2_000, claimPollMs: 10 } });
    const started = Date.now();
    const searched = waiting.search(query('a'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The claimant stores its answer, stamped by a clock an hour behind.
    stored.set(key, { result: { ...answer, totalAvailable: 3 }, expiresAtMs: clock.t - 3_600_000, revision: 8 });
    await expect(searched).resolves.toMatchObject({ totalAvailable: 3, requests: 0 });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(state.searches).toBe(0);
    // Kept for this replica's own TTL.
    await expect(waiting.search(query('a'))).resolves.toMatchObject({ totalAvailable: 3, requests: 0 });
  });

  it('fetches at once when a claim cannot be made, and says why', async () => {
    const { state, source } = scriptedSource();
    const why: unknown[] = [];
    const { cache } = claimingCache();
    const claimless = { ...cache, claim: () => Promise.reject(new Error('no JetStream')) };
    const checked = new ReachabilityCheckedSource(source, { ...options, sharedResponses: { cache: claimless, claimMs: 10_000, onUnavailable: (error) => why.push(error) } });
    const started = Date.now();
    await expect(checked.search(query('a'))).resolves.toMatchObject({ requests: 1 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect([state.searches, why.map((e) => (e as Error).message)]).toEqual([1, ['no JetStream']]);
  });

  it('keys a request by its normalised content: whitespace and field order do not matter, every asked field does', () => {
    const key = responseCacheKey('arxiv', { text: 'graph  attention', phrases: ['graph attention '], limit: 3 });
    expect(key).toMatch(/^arxiv\.[0-9a-f]{64}$/);
    expect(responseCacheKey('arxiv', { limit: 3, phrases: ['graph attention'], text: ' graph attention', signal: AbortSignal.timeout(1) })).toBe(key);
    expect(responseCacheKey('arxiv', { text: 'graph attention', phrases: ['graph attention'], limit: 4 })).not.toBe(key);
    expect(responseCacheKey('crossref', { text: 'graph attention', phrases: ['graph attention'], limit: 3 })).not.toBe(key);
  });
});
