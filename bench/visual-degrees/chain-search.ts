/**
 * Visual degrees benchmark: recognition calls per found 3-hop chain, unidirectional (the spec's MVP)
 * vs bidirectional (meet in the middle, expanding the smaller frontier), in the local world.
 *
 * Every 3-hop pair (shortest clear chain of exactly 3 hops) of each seed's world is searched twice, each
 * run with fresh run memory and a fresh evidence cache, through the service's real handlers (local image
 * search over captions, sharp-rendered photos, the pixel-reading local recogniser): S1 direct attempt
 * ("{A} {B}", "{A} {B} event"), then expansions by DiscoverCandidates ("{X} with celebrities",
 * "{X} event", first 5 images each) until the frontiers meet. Run budgets are the spec's upper defaults
 * (20 searches, 120 recognitions); hop limit 6. Prints per strategy: chains found, recognition calls of
 * all runs divided by chains found (the cost of a chain, failed runs included), recognition and search
 * calls per found chain (mean, median, max), chain lengths, and runs per minute.
 *
 *   npm run build && node dist/bench/visual-degrees/chain-search.js [--seeds 7,11,13] [--pairs 12] [--recognitions 120] [--searches 20]
 */
import { CandidatesDiscovered, directQueries, discoveryQueries, EdgeRefuted, EdgeVerified, VisualStepFailed } from '@openpaw/contracts';
import { isReplyOf, replyAs } from '@openpaw/messaging';
import { generateVisualWorld, pairsAtDistance } from '@openpaw/providers';
import {
  DiscoverCandidatesHandler,
  type FrontierState,
  InMemoryEvidenceCache,
  InMemoryRunMemory,
  isPerson,
  localWorldPorts,
  nextExpansion,
  type PersonRef,
  recordExpansion,
  startFrontiers,
  type Strategy,
  VerifyEdgeHandler,
} from '../../apps/visual-search/src/public-api.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};

interface RunResult {
  readonly found: boolean;
  readonly hops: number;
  readonly recognitions: number;
  readonly searches: number;
  readonly reason?: string;
}

const THRESHOLD = 80;
const HOP_LIMIT = 6;

async function searchChain(seed: number, a: number, b: number, strategy: Strategy, budget: { searches: number; recognitions: number }, runNo: number): Promise<RunResult> {
  const base = localWorldPorts(seed);
  const ports = { ...base, memory: new InMemoryRunMemory(), cache: new InMemoryEvidenceCache() };
  const verify = new VerifyEdgeHandler(ports);
  const discover = new DiscoverCandidatesHandler(ports);
  const run = { sessionId: 'bench', runId: `00000000-0000-4000-8000-${runNo.toString(16).padStart(12, '0')}` };
  let searches = 0;
  let recognitions = 0;
  let step = 0;
  const remaining = () => ({ searchCalls: Math.max(0, budget.searches - searches), recognitionCalls: Math.max(0, budget.recognitions - recognitions) });
  const roots: Record<'A' | 'B', PersonRef> = { A: { name: base.world.people[a]!.name }, B: { name: base.world.people[b]!.name } };
  const names = new Map<string, string>([
    ['A', roots.A.name],
    ['B', roots.B.name],
  ]);
  const keyOf = (person: { name: string; celebrityId: string }): string => (isPerson(person, roots.A) ? 'A' : isPerson(person, roots.B) ? 'B' : person.celebrityId);

  step += 1;
  const direct = await verify.execute({
    commandId: `d-${runNo}`,
    data: { ...run, step, from: roots.A, to: roots.B, queries: directQueries(roots.A.name, roots.B.name), imagesPerQuery: 5, threshold: THRESHOLD, budget: remaining() },
  });
  if (isReplyOf(direct, VisualStepFailed)) return { found: false, hops: 0, recognitions, searches, reason: direct.data.errorCode };
  const edge = replyAs(direct, EdgeVerified, EdgeRefuted);
  searches += edge.data.usage.searchCalls;
  recognitions += edge.data.usage.recognitionCalls;
  if (isReplyOf(edge, EdgeVerified)) return { found: true, hops: 1, recognitions, searches };

  let state: FrontierState = startFrontiers('A', 'B', strategy, HOP_LIMIT);
  for (;;) {
    const next = nextExpansion(state);
    if (next === undefined) return { found: false, hops: 0, recognitions, searches, reason: 'hop_limit_or_exhausted' };
    if (remaining().searchCalls === 0 || remaining().recognitionCalls === 0) return { found: false, hops: 0, recognitions, searches, reason: 'budget' };
    step += 1;
    const root = next.node === 'A' || next.node === 'B' ? roots[next.node] : undefined;
    const frontier = root ?? { name: names.get(next.node) ?? next.node, celebrityId: next.node };
    const answer = await discover.execute({
      commandId: `x-${runNo}-${step}`,
      data: { ...run, step, frontier, queries: discoveryQueries(frontier.name), imagesPerQuery: 5, threshold: THRESHOLD, budget: remaining(), exclude: [] },
    });
    if (isReplyOf(answer, VisualStepFailed)) return { found: false, hops: 0, recognitions, searches, reason: answer.data.errorCode };
    const reply = replyAs(answer, CandidatesDiscovered);
    searches += reply.data.usage.searchCalls;
    recognitions += reply.data.usage.recognitionCalls;
    if (root !== undefined && reply.data.frontier.celebrityId !== undefined) roots[next.node as 'A' | 'B'] = reply.data.frontier;
    const neighbours = reply.data.candidates.map((c) => {
      const key = keyOf(c.person);
      names.set(key, c.person.name);
      return { node: key, edgeConf: c.bestConfWithFrontier };
    });
    const outcome = recordExpansion(state, next, neighbours);
    if (outcome.chain !== undefined) return { found: true, hops: outcome.chain.length, recognitions, searches };
    state = outcome.state;
  }
}

function stats(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((x, y) => x - y);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return `mean ${mean.toFixed(1)}, median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted[sorted.length - 1]}`;
}

async function main(): Promise<void> {
  const seeds = arg('seeds', '7,11,13').split(',').map(Number);
  const maxPairs = Number(arg('pairs', '12'));
  const budget = { searches: Number(arg('searches', '20')), recognitions: Number(arg('recognitions', '120')) };
  const results: Record<Strategy, RunResult[]> = { unidirectional: [], bidirectional: [] };
  const elapsed: Record<Strategy, number> = { unidirectional: 0, bidirectional: 0 };
  let runNo = 0;
  for (const seed of seeds) {
    const pairs = pairsAtDistance(generateVisualWorld({ seed }), 3).slice(0, maxPairs);
    for (const [a, b] of pairs) {
      for (const strategy of ['unidirectional', 'bidirectional'] as const) {
        runNo += 1;
        const started = performance.now();
        results[strategy].push(await searchChain(seed, a, b, strategy, budget, runNo));
        elapsed[strategy] += performance.now() - started;
      }
    }
  }
  console.log(`visual degrees, local world seeds ${seeds.join(',')}, ${results.unidirectional.length} 3-hop pairs, budgets ${budget.searches} searches / ${budget.recognitions} recognitions, hop limit ${HOP_LIMIT}`);
  for (const strategy of ['unidirectional', 'bidirectional'] as const) {
    const runs = results[strategy];
    const found = runs.filter((r) => r.found);
    const failures = runs.filter((r) => !r.found).map((r) => r.reason ?? '?');
    console.log(
      `${strategy.padEnd(15)} found ${found.length}/${runs.length}` +
        ` | recognitions, all runs / chains found: ${(runs.reduce((sum, r) => sum + r.recognitions, 0) / Math.max(1, found.length)).toFixed(1)}` +
        ` | per found chain: ${stats(found.map((r) => r.recognitions))}` +
        ` | searches per found chain: ${stats(found.map((r) => r.searches))}` +
        ` | hops: ${stats(found.map((r) => r.hops))}` +
        ` | failures: ${failures.length === 0 ? 'none' : failures.join(',')}` +
        ` | ${((runs.length / elapsed[strategy]) * 60_000).toFixed(1)} runs/min (one process, sequential)`,
    );
  }
}

await main();
