import { CandidatesDiscovered, DiscoverCandidates, EdgeRefuted, EdgeVerified, ExpansionSelected, type MessageData, seededRandom, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import { RUN_DEADLINE_TIMER } from '@openpaw/saga';
import { SagaDriver } from '../testing/saga-driver.js';
import { definition, ADA, XAV, BEA, START, type Person, SHORT_PAGES, usage, edge, candidate, data, verified, refuted, discovered, selected, started, selecting, frontierOf, decisions } from './testing/given.js';
import type { VisualDegreesData } from './visual-degrees.data.js';

/**
 * Property: whatever the graph and the pair, a returned path has at most `maxHops` edges, for every
 * `maxHops` from 1 to 6 and both strategies. The service is played by a graph of co-appearances that
 * answers each command as visual-search would (verified when the pair is adjacent, the frontier's
 * neighbours minus the excluded ids, the first candidate chosen).
 */

/** What each of the graph's answers costs. */
const oneEach = { searchCalls: 1, recognitionCalls: 1, imagesSkipped: 0, cacheHit: false };

interface Graph {
  readonly people: readonly { readonly name: string; readonly celebrityId: string }[];
  readonly adjacent: (a: number, b: number) => boolean;
  readonly neighbours: (a: number) => number[];
}

/** A sparse chain-like graph (a ring with a few chords), so pairs lie 1 to ~6 hops apart. */
function graph(seed: number, size: number): Graph {
  const next = seededRandom(seed);
  const edges = new Set<string>();
  const key = (a: number, b: number): string => (a < b ? `${a}-${b}` : `${b}-${a}`);
  for (let i = 0; i < size; i += 1) if (next() < 0.9) edges.add(key(i, (i + 1) % size));
  for (let c = 0; c < size / 4; c += 1) edges.add(key(Math.floor(next() * size), Math.floor(next() * size)));
  const people = Array.from({ length: size }, (_, i) => ({ name: `Person ${i}`, celebrityId: `c-${i}` }));
  const adjacent = (a: number, b: number): boolean => a !== b && edges.has(key(a, b));
  return { people, adjacent, neighbours: (a) => people.map((_, b) => b).filter((b) => adjacent(a, b)) };
}

const indexOf = (g: Graph, person: { readonly name: string; readonly celebrityId?: string | undefined }): number =>
  g.people.findIndex((p) => (person.celebrityId === undefined ? p.name === person.name : p.celebrityId === person.celebrityId));

const photo = (confidenceFrom: number, confidenceTo: number) => ({ imageUrl: 'https://img.example/1.jpg', query: 'q', phash: '0123456789abcdef', confidenceFrom, confidenceTo });

/** A refuted attempt's photos of one of its ends, each with a neighbour of theirs (a bridge's photos can show the chains meet: ADR 0022 rule 9). */
function pictured(g: Graph, end: number, side: 'from' | 'to', queries: readonly string[]) {
  const person = g.people[end];
  if (person === undefined) return [];
  return g.neighbours(end).map((n) => ({
    imageUrl: `https://img.example/${end}-${n}.jpg`,
    query: queries[0] ?? '',
    confidenceFrom: side === 'from' ? 95 : null,
    confidenceTo: side === 'to' ? 95 : null,
    shows: [person.celebrityId, g.people[n]?.celebrityId ?? ''],
  }));
}

/** Plays the service for the command in flight; false when there is none. */
function answer(d: SagaDriver, g: Graph): boolean {
  const data = d.s.run.data as VisualDegreesData;
  const command = data.command;
  if (command === null) return false;
  const step = data.stepNo;
  if (command.subject === VerifyEdge.subject) {
    const c = command.data as MessageData<typeof VerifyEdge>;
    const [a, b] = [indexOf(g, c.from), indexOf(g, c.to)];
    const from = g.people[a];
    const to = g.people[b];
    if (from !== undefined && to !== undefined && g.adjacent(a, b)) d.reply(VerifyEdge, EdgeVerified, { step, edge: { from, to, edgeConf: 90, evidence: [photo(95, 90)] }, usage: oneEach });
    else d.reply(VerifyEdge, EdgeRefuted, { step, from: c.from, to: c.to, reason: 'no_evidence', partialEvidence: [...pictured(g, a, 'from', c.queries), ...pictured(g, b, 'to', c.queries)].slice(0, 20), usage: oneEach });
    return true;
  }
  if (command.subject === DiscoverCandidates.subject) {
    const c = command.data as MessageData<typeof DiscoverCandidates>;
    const f = indexOf(g, c.frontier);
    const candidates = g
      .neighbours(f)
      .map((n) => g.people[n])
      .flatMap((p) => (p === undefined || c.exclude.includes(p.celebrityId) ? [] : [{ person: p, count: 1, bestConfWithFrontier: 90, evidence: [photo(95, 90)] }]));
    d.reply(DiscoverCandidates, CandidatesDiscovered, { step, frontier: g.people[f] ?? c.frontier, candidates, usage: oneEach });
    return true;
  }
  const c = command.data as MessageData<typeof SelectNextExpansion>;
  const first = c.candidates[0];
  if (first === undefined) throw new Error('a selection without candidates');
  d.reply(SelectNextExpansion, ExpansionSelected, { step, nextCandidates: [first.person], searchQueries: [], narration: '', decidedBy: 'fallback', fallbackReason: 'no_llm_budget', usage: { llmCalls: 0, costUsd: 0 } });
  return true;
}

function run(g: Graph, from: number, to: number, maxHops: number, strategy: 'one_sided' | 'meet_in_the_middle'): { state: string; path: readonly string[] } {
  const d = new SagaDriver(definition);
  d.start({ from: g.people[from]?.name ?? '', to: g.people[to]?.name ?? '', options: { maxHops, strategy, maxSearchCalls: 100, maxRecognitionCalls: 600 } });
  for (let i = 0; i < 400 && !['SUCCEEDED', 'FAILED'].includes(d.s.run.state); i += 1) if (!answer(d, g)) break;
  const data = d.s.run.data as VisualDegreesData;
  return { state: d.s.run.state, path: data.path.map((p) => p.celebrityId ?? p.name) };
}

describe('visual_degrees (spec 03): the hop limit and the budgets', () => {
  describe('S5: the hop limit', () => {
    it('when the chain has 5 hops and its end does not reach B, then it steps back rather than pass 6 hops, and ends when nothing shorter is left', () => {
      const people = Array.from({ length: 6 }, (_, i) => ({ name: `Person ${i}`, celebrityId: `c-${i}` }));
      const d = started({ ...START, options: { maxSearchCalls: 100, maxRecognitionCalls: 600, maxLlmCalls: 20, strategy: 'one_sided' } });
      refuted(d, { name: ADA.name }, BEA);
      let frontier: Person = ADA;
      let last: ReturnType<typeof refuted> | undefined;
      for (const next of people.slice(0, 5)) {
        expect(d.s.run.state).toBe('DISCOVERING');
        discovered(d, frontier, [candidate(next, 90, 1, frontier)]);
        selected(d, [next]);
        verified(d, edge(frontier, next), usage(0, 0, true));
        last = refuted(d, next, { name: BEA.name });
        frontier = next;
      }
      // A 6th hop would need a 7th to reach B: Person 4 leaves the chain, and Person 3 is searched again without it.
      expect(d.s.run.state).toBe('DISCOVERING');
      expect(data(d).edges).toHaveLength(4);
      expect(decisions(d, 'step_back')).toEqual([expect.objectContaining({ dropped: 'Person 4', frontier: 'Person 3', hop_depth: 4 })]);
      expect(last?.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: people[3], exclude: expect.arrayContaining(['c-4']) })]);
      // Nothing else anywhere: the chain steps back to A, then the run ends; never a path over 6 hops.
      for (let guard = 0; d.s.run.state === 'DISCOVERING' && guard < 10; guard++) discovered(d, frontierOf(d), [], SHORT_PAGES);
      expect(d.s.run.state).toBe('FAILED');
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { message: 'No verified visual connection found within 6 degrees at ≥80% confidence.', reason: 'no_candidates', hopLimit: 6 } });
      expect(data(d).events.some((e) => e.type === 'final')).toBe(false);
    });

    it('when the limit is 1, then a refuted direct edge ends the run: no discovery could stay within one hop', () => {
      const d = started({ ...START, options: { maxHops: 1 } });
      const s = refuted(d, { name: ADA.name }, { name: BEA.name });
      expect(s.state).toBe('FAILED');
      expect(d.commandCount(DiscoverCandidates)).toBe(0);
      expect(data(d).failure).toMatchObject({ reason: 'hop_limit_reached' });
    });

    it('when the limit is lowered to 2, then one expansion at a time is all there is: a second steps back', () => {
      const d = selecting(undefined, { ...START, options: { maxHops: 2, strategy: 'one_sided' } });
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      const s = refuted(d, XAV, { name: BEA.name });
      // A → X → ? → B would be 3 hops: X leaves the chain and A is searched again without X.
      expect(s.state).toBe('DISCOVERING');
      expect(data(d).edges).toHaveLength(0);
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: ADA, exclude: expect.arrayContaining(['c-xav']) })]);
      expect(discovered(d, ADA, [], SHORT_PAGES).state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'no_candidates' });
    });
  });

  describe('budgets: each one spent ends the run in S7 with its reason', () => {
    it('search: the budget is spent before discovery can search', () => {
      const d = started({ ...START, options: { maxSearchCalls: 1 } });
      const s = refuted(d, { name: ADA.name }, { name: BEA.name }, usage(1, 5));
      expect(s.state).toBe('FAILED');
      expect(s.sent(DiscoverCandidates)).toEqual([]);
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { reason: 'search_budget_exhausted', used: { searchCalls: 1 } } });
    });

    it('recognition: a step that stopped at its recognition budget', () => {
      const d = started();
      refuted(d, { name: ADA.name }, { name: BEA.name });
      const s = discovered(d, ADA, [candidate(XAV, 95)], usage(3, 115), { budgetExhausted: 'recognition' });
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'recognition_budget_exhausted' });
    });

    it('recognition: a verification refuted because the budget ran out is not a refutation of the candidate', () => {
      const d = selecting();
      selected(d, [XAV]);
      const s = refuted(d, ADA, XAV, usage(2, 10), { reason: 'budget_exhausted', budgetExhausted: 'search' });
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'search_budget_exhausted' });
      expect(data(d).failedFrom).toEqual({});
    });

    it('LLM calls: none (maxLlmCalls 0) or none left is no LLM, the deterministic ranking; the run goes on (ADR 0022)', () => {
      const d = selecting(undefined, { ...START, options: { maxLlmCalls: 0 } });
      expect(d.s.run.state).toBe('SELECTING');
      expect(d.s.run.data).toMatchObject({ used: { llmCalls: 0 } });
      expect(data(d).command).toMatchObject({ subject: SelectNextExpansion.subject, data: { budgetsRemaining: { llmCalls: 0 } } });
      const s = selected(d, [XAV], { decidedBy: 'fallback', fallbackReason: 'no_llm_budget', searchQueries: [], narration: '', usage: { llmCalls: 0, costUsd: 0 } });
      expect(s.state).toBe('VERIFYING');
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ to: XAV, queries: ['Ada Stone Xavier Reed', 'Ada Stone Xavier Reed event'] })]);

      const spent = selecting(undefined, { ...START, options: { maxLlmCalls: 1 } });
      selected(spent, [XAV]);
      refuted(spent, ADA, XAV);
      expect(spent.s.run.state).toBe('SELECTING');
      expect(data(spent).command).toMatchObject({ subject: SelectNextExpansion.subject, data: { budgetsRemaining: { llmCalls: 0 } } });
    });

    it('runtime: the deadline passes mid-run', () => {
      const d = selecting(undefined, { ...START, options: { maxRuntimeMs: 5_000 } });
      const s = d.fire(RUN_DEADLINE_TIMER);
      expect(s.state).toBe('FAILED');
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { reason: 'runtime_budget_exhausted' } });
      expect(d.pendingTimers()).toEqual([]);
    });
  });
});

describe('visual_degrees: the hop limit holds on every path into discovery and the bridge', () => {
  const graphs = [graph(11, 14), graph(23, 16)];
  it.each([1, 2, 3, 4, 5, 6])('maxHops %i: every returned path has at most that many edges, each a real co-appearance', (maxHops) => {
    let found = 0;
    let atTheLimit = 0;
    for (const g of graphs) {
      for (let from = 0; from < g.people.length; from += 5) {
        for (let to = 0; to < g.people.length; to += 1) {
          if (from === to) continue;
          for (const strategy of ['one_sided', 'meet_in_the_middle'] as const) {
            const result = run(g, from, to, maxHops, strategy);
            if (result.state !== 'SUCCEEDED') continue;
            found += 1;
            const hops = result.path.length - 1;
            expect({ maxHops, strategy, from, to, hops }).toEqual({ maxHops, strategy, from, to, hops: Math.min(hops, maxHops) });
            for (let i = 0; i < hops; i += 1) expect(g.adjacent(Number(result.path[i]?.slice(2)), Number(result.path[i + 1]?.slice(2)))).toBe(true);
            if (hops === maxHops) atTheLimit += 1;
          }
        }
      }
    }
    // The property is not vacuous: chains are found, some of them exactly at the limit.
    expect(found).toBeGreaterThan(0);
    expect(atTheLimit).toBeGreaterThan(0);
  });
});
