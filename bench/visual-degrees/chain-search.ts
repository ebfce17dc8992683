/**
 * Visual degrees benchmark, in one process: the product's own search (the `visual_degrees` saga
 * definition, on the pure saga engine) over the service's real step handlers (local image search over
 * captions, sharp-rendered photos, the pixel-reading local recogniser, the deterministic selection when
 * no model is configured), `one_sided` (spec 03's MVP) vs `meet_in_the_middle` (the product's default).
 * No NATS, no database: each command the saga sends is handed to its handler and the reply fed back,
 * as the coordinator and visual-search do over JetStream. Every run has fresh run memory and a fresh
 * evidence cache; the product's default budgets (20 searches, 120 recognitions) and hop limit (6) unless
 * given. The product bench over processes is bench/visual/visual-degrees-runs.ts.
 *
 * Prints per strategy: chains found, recognition calls of all runs divided by chains found (the cost of
 * a chain, failed runs included), recognition and search calls per found chain (mean, median, max),
 * chain lengths, why the others failed, and runs per minute.
 *
 *   npm run build && node dist/bench/visual-degrees/chain-search.js [--seeds 7,11,13] [--pairs 12] [--recognitions 120] [--searches 20]
 *     [--strategies one_sided,meet_in_the_middle]
 */
import { DiscoverCandidates, type MessageData, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import type { Reply } from '@openpaw/messaging';
import { createLlmFromEnv, generateVisualWorld, pairsAtDistance, visualWorldHash } from '@openpaw/providers';
import { scenario } from '@openpaw/saga';
import { type VisualDegreesData, visualDegreesDefinition } from '../../apps/coordinator/src/public-api.js';
import { DiscoverCandidatesHandler, localWorldPorts, SelectNextExpansionHandler, VerifyEdgeHandler } from '../../apps/visual-search/src/public-api.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};

type Strategy = 'one_sided' | 'meet_in_the_middle';
const STRATEGIES: readonly Strategy[] = ['one_sided', 'meet_in_the_middle'];

interface RunResult {
  readonly found: boolean;
  readonly hops: number;
  readonly recognitions: number;
  readonly searches: number;
  readonly reason?: string;
}

/** The most inputs one run may take: far above any run within the budgets, so a saga that never ends is reported, not waited for. */
const MAX_INPUTS = 500;
const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

async function searchChain(seed: number, from: string, to: string, strategy: Strategy, budget: { searches: number; recognitions: number }, runNo: number): Promise<RunResult> {
  const ports = localWorldPorts(seed);
  const handlers = {
    verify: new VerifyEdgeHandler(ports),
    discover: new DiscoverCandidatesHandler(ports),
    select: new SelectNextExpansionHandler({ llm: createLlmFromEnv({}), memory: ports.memory }),
  };
  const answer = (subject: string, commandId: string, data: unknown): Promise<Reply> => {
    // The outbox holds each command as the saga built it, validated by the engine against its schema.
    if (subject === VerifyEdge.subject) return handlers.verify.execute({ commandId, data: data as MessageData<typeof VerifyEdge> });
    if (subject === DiscoverCandidates.subject) return handlers.discover.execute({ commandId, data: data as MessageData<typeof DiscoverCandidates> });
    if (subject === SelectNextExpansion.subject) return handlers.select.execute({ commandId, data: data as MessageData<typeof SelectNextExpansion> });
    throw new Error(`the bench has no handler for ${subject}`);
  };
  const run = scenario(visualDegreesDefinition(), `00000000-0000-4000-8000-${runNo.toString(16).padStart(12, '0')}`, 'bench');
  let step = run.givenStarted({ from, to, sessionId: 'bench', options: { strategy, maxSearchCalls: budget.searches, maxRecognitionCalls: budget.recognitions } });
  for (let inputs = 0; !TERMINAL.has(step.state ?? '') && inputs < MAX_INPUTS; inputs++) {
    const [command, ...more] = step.messages().filter((message) => message.envelope.type.startsWith('openpaw.cmd.'));
    if (command === undefined || more.length > 0) throw new Error(`run ${runNo} in ${step.state ?? '?'}: expected one command, the saga sent ${more.length + (command === undefined ? 0 : 1)}`);
    const reply = await answer(command.envelope.type, command.envelope.id, command.envelope.data);
    step = run.when(run.event(reply.message, reply.data));
  }
  // The engine keeps run data untyped; this run is a visual_degrees run.
  const data = run.run.data as VisualDegreesData;
  const last = data.events.at(-1);
  if (last?.type === 'final') {
    const final = last.data;
    return { found: true, hops: final.path.length - 1, recognitions: final.used.recognitionCalls, searches: final.used.searchCalls };
  }
  if (last?.type === 'no_path') {
    const noPath = last.data;
    return { found: false, hops: 0, recognitions: noPath.used.recognitionCalls, searches: noPath.used.searchCalls, reason: data.failure?.reason ?? 'no_path' };
  }
  return { found: false, hops: 0, recognitions: 0, searches: 0, reason: `ended ${step.state ?? '?'} with ${last?.type ?? 'no event'}` };
}

function stats(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((x, y) => x - y);
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return `mean ${mean.toFixed(2)}, median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted[sorted.length - 1]}`;
}

async function main(): Promise<void> {
  const seeds = arg('seeds', '7,11,13').split(',').map(Number);
  const maxPairs = Number(arg('pairs', '12'));
  const budget = { searches: Number(arg('searches', '20')), recognitions: Number(arg('recognitions', '120')) };
  const strategies = arg('strategies', STRATEGIES.join(',')).split(',') as Strategy[];
  if (strategies.some((s) => !STRATEGIES.includes(s))) throw new Error(`--strategies: one or more of ${STRATEGIES.join(', ')}`);
  const results: Record<Strategy, RunResult[]> = { one_sided: [], meet_in_the_middle: [] };
  const elapsed: Record<Strategy, number> = { one_sided: 0, meet_in_the_middle: 0 };
  let runNo = 0;
  for (const seed of seeds) {
    const world = generateVisualWorld({ seed });
    console.log(`seed ${seed}: world ${visualWorldHash(world)}`);
    const name = (index: number): string => world.people[index]?.name ?? '';
    for (const [a, b] of pairsAtDistance(world, 3).slice(0, maxPairs)) {
      for (const strategy of strategies) {
        runNo += 1;
        const started = performance.now();
        results[strategy].push(await searchChain(seed, name(a), name(b), strategy, budget, runNo));
        elapsed[strategy] += performance.now() - started;
      }
    }
  }
  console.log(`visual degrees (the product's saga in process), local world seeds ${seeds.join(',')}, ${results[strategies[0] ?? 'one_sided'].length} 3-hop pairs, budgets ${budget.searches} searches / ${budget.recognitions} recognitions`);
  for (const strategy of strategies) {
    const runs = results[strategy];
    const found = runs.filter((r) => r.found);
    const failures = runs.filter((r) => !r.found).map((r) => r.reason ?? '?');
    console.log(
      `${strategy.padEnd(18)} found ${found.length}/${runs.length}` +
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
