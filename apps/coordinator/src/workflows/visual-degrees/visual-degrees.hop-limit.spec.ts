import { CandidatesDiscovered, DiscoverCandidates, EdgeRefuted, EdgeVerified, ExpansionSelected, type MessageData, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import { SagaDriver } from '../testing/saga-driver.js';
import { visualDegreesDefinition } from './visual-degrees.definition.js';
import type { VisualDegreesData } from './visual-degrees.data.js';

/**
 * Property: whatever the graph and the pair, a returned path has at most `maxHops` edges, for every
 * `maxHops` from 1 to 6 and both strategies. The service is played by a graph of co-appearances that
 * answers each command as visual-search would (verified when the pair is adjacent, the frontier's
 * neighbours minus the excluded ids, the first candidate chosen).
 */

const definition = visualDegreesDefinition();
const usage = { searchCalls: 1, recognitionCalls: 1, imagesSkipped: 0, cacheHit: false };

/** A small seeded PRNG (mulberry32): the graphs are the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Graph {
  readonly people: readonly { readonly name: string; readonly celebrityId: string }[];
  readonly adjacent: (a: number, b: number) => boolean;
  readonly neighbours: (a: number) => number[];
}

/** A sparse chain-like graph (a ring with a few chords), so pairs lie 1 to ~6 hops apart. */
function graph(seed: number, size: number): Graph {
  const next = random(seed);
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

const image = (confidenceFrom: number, confidenceTo: number) => ({ imageUrl: 'https://img.example/1.jpg', query: 'q', phash: '0123456789abcdef', confidenceFrom, confidenceTo });

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
    if (from !== undefined && to !== undefined && g.adjacent(a, b)) d.reply(VerifyEdge, EdgeVerified, { step, edge: { from, to, edgeConf: 90, evidence: [image(95, 90)] }, usage });
    else d.reply(VerifyEdge, EdgeRefuted, { step, from: c.from, to: c.to, reason: 'no_evidence', partialEvidence: [], usage });
    return true;
  }
  if (command.subject === DiscoverCandidates.subject) {
    const c = command.data as MessageData<typeof DiscoverCandidates>;
    const f = indexOf(g, c.frontier);
    const candidates = g
      .neighbours(f)
      .map((n) => g.people[n])
      .flatMap((p) => (p === undefined || c.exclude.includes(p.celebrityId) ? [] : [{ person: p, count: 1, bestConfWithFrontier: 90, evidence: [image(95, 90)] }]));
    d.reply(DiscoverCandidates, CandidatesDiscovered, { step, frontier: g.people[f] ?? c.frontier, candidates, usage });
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
