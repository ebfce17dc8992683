/**
 * Issue 24's platform bench for maths hits through the gateway (every service its own process, like
 * hit-path): each pair submits a stored problem, then its twin, and reads the twin's outcome and the
 * final answer of its solution page.
 *
 * - worded ↔ symbolic twins ("Five more than twice a number is seventeen; find the number" and
 *   "Solve 2k + 5 = 17", either first): the twin should hit (target ≥ 0.9), answered in its own terms;
 * - renamed pairs (the same equation or system in other names, unknowns exchanged): the twin should hit
 *   and come back relabelled, i.e. its answer in the asker's names with the right values;
 * - role-changed pairs (the same names in other roles, or another asked-for unknown) and near misses
 *   (one number changed, in other names too) must never hit: a hit there is wrong.
 *
 * A wrong hit is a hit whose answer is not the twin's; it must be 0. Generated from a seed (mulberry32).
 *
 *   npm run build && node dist/bench/maths/twins-bench.js [--pairs 20] [--seed 24] [--root DIR] [--fail-on-wrong]
 */
import { capital, seeded, spoken } from './pinned-set.js';
import { pick, randomInt } from '../ingestion-retrieval/support/random.js';
import { type BenchPlatform, startBenchPlatform, THIS_CHECKOUT } from '../support/gateway-platform.js';

type Kind = 'worded twin' | 'renamed' | 'role-changed' | 'near miss';

interface Pair {
  readonly kind: Kind;
  readonly stored: string;
  readonly twin: string;
  /** What the twin's final answer must say (each part), e.g. ["k = 5"] or ["p = 3", "q = 6"]. */
  readonly answer: readonly string[];
}

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

/** Unknowns that read as unknowns in a sentence, never as a word or a constant. */
const NAMES = ['x', 'y', 'k', 'm', 'p', 'q', 't', 'u', 'w', 'z'];

function twoNames(rng: () => number): [string, string] {
  const first = pick(rng, NAMES);
  return [first, pick(rng, NAMES.filter((n) => n !== first))];
}

/**
 * The pairs of one seed. `fresh` (even, one per pair) makes every pair's numbers its own, so no twin can
 * hit another pair's stored problem.
 */
function pairsOf(seed: number, perKind: number): Pair[] {
  const rng = seeded(seed);
  const pairs: Pair[] = [];
  for (let i = 0; i < perKind; i++) {
    const fresh = 20 + 8 * i;
    // Worded ↔ symbolic, either one stored first.
    const [name] = twoNames(rng);
    const value = randomInt(rng, 2, 12);
    const template = randomInt(rng, 0, 2);
    const q = randomInt(rng, 2, 15);
    const [worded, symbolic] =
      template === 0
        ? [`${capital(spoken(rng, q))} more than twice a number is ${spoken(rng, 2 * value + q + fresh)}; find the number`, `Solve 2${name} + ${q} = ${2 * value + q + fresh}`]
        : template === 1
          ? [`A number times ${spoken(rng, q)} equals ${spoken(rng, q * (value + fresh))}. What is the number?`, `Solve ${q}${name} = ${q * (value + fresh)}`]
          : [`${capital(spoken(rng, q))} less than a number is ${spoken(rng, value + fresh)}. Find the number.`, `Solve ${name} - ${q} = ${value + fresh}`];
    const solution = template === 0 ? value + fresh / 2 : template === 1 ? value + fresh : value + fresh + q;
    pairs.push(
      rng() < 0.5
        ? { kind: 'worded twin', stored: symbolic, twin: worded, answer: [`the number is ${solution}`] }
        : { kind: 'worded twin', stored: worded, twin: symbolic, answer: [`${name} = ${solution}`] },
    );

    // Renamed: one equation in another name, or a system with its unknowns exchanged or renamed.
    const [u, w] = twoNames(rng);
    const [a, b] = [randomInt(rng, 2, 9), randomInt(rng, 1, 9) + fresh];
    const [vu, vw] = [randomInt(rng, 2, 15) + fresh, randomInt(rng, 2, 15)];
    if (rng() < 0.5) {
      pairs.push({ kind: 'renamed', stored: `Solve ${a}${u} + ${b} = ${a * vu + b}`, twin: `Solve ${a}${w} + ${b} = ${a * vu + b}`, answer: [`${w} = ${vu}`] });
    } else {
      const c = randomInt(rng, 2, 5);
      const system = (first: string, second: string): string => `Solve ${first} + ${c}${second} = ${vu + c * vw}, ${first} - ${second} = ${vu - vw}`;
      // The asker writes the same system with the unknowns exchanged: their first (w) is the stored first's role.
      pairs.push({ kind: 'renamed', stored: system(u, w), twin: system(w, u), answer: [`${w} = ${vu}`, `${u} = ${vw}`] });
    }

    // Role-changed: the same names in exchanged roles, or another unknown asked for.
    const k = randomInt(rng, 2, 5);
    const base = randomInt(rng, 2, 9) + fresh;
    const total = (k + 1) * base;
    pairs.push(
      rng() < 0.5
        ? { kind: 'role-changed', stored: `If ${u} = ${k}${w} and ${u} + ${w} = ${total}, find ${u}`, twin: `If ${w} = ${k}${u} and ${u} + ${w} = ${total}, find ${u}`, answer: [`${u} = ${base}`] }
        : { kind: 'role-changed', stored: `If ${u} = ${k}${w} and ${u} + ${w} = ${total}, find ${u}`, twin: `If ${u} = ${k}${w} and ${u} + ${w} = ${total}, find ${w}`, answer: [`${w} = ${base}`] },
    );

    // Near miss: one number changed, and written in another name.
    const [a2, b2, v2] = [randomInt(rng, 2, 9), randomInt(rng, 1, 9) + 3 * fresh, randomInt(rng, 2, 15)];
    const rhs = a2 * v2 + b2;
    pairs.push({ kind: 'near miss', stored: `Solve ${a2}${u} + ${b2} = ${rhs}`, twin: `Solve ${a2}${w} + ${b2} = ${rhs + a2}`, answer: [`${w} = ${v2 + 1}`] });
  }
  return pairs;
}

/** The text of the solution page's final answer. */
async function finalAnswerOf(bench: BenchPlatform, runId: string): Promise<string> {
  const html = await (await bench.get(`/runs/${runId}/solution`)).text();
  const match = /data-final-answer>([\s\S]*?)<\/(?:div|p|section)>/.exec(html);
  return (match?.[1] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\s+/g, ' ')
    .trim();
}

interface Tally {
  pairs: number;
  hits: number;
  rightHits: number;
  wrongHits: number;
  answeredRight: number;
  storedNotSolved: number;
}

async function main(): Promise<void> {
  const rootFlag = process.argv.indexOf('--root');
  const root = rootFlag >= 0 ? (process.argv[rootFlag + 1] ?? '') : THIS_CHECKOUT;
  const perKind = arg('pairs', 20);
  const seed = arg('seed', 24);
  const pairs = pairsOf(seed, perKind);
  const bench = await startBenchPlatform({
    root,
    databaseName: 'maths_twins_bench',
    services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
    env: {
      OPENPAW_POLICY_JSON: JSON.stringify({ defaults: { video_generation: 'skip' } }),
      // One user submits every pair back to back: room above the free tier's 2 runs/s, as an operator would give it.
      OPENPAW_ADMISSION_JSON: JSON.stringify({ tiers: { free: { ratePerSecond: 100, burst: 100, maxInFlight: 100 } }, maxInFlightTotal: 100 }),
    },
  });
  const tallies = new Map<Kind, Tally>();
  const wrong: string[] = [];
  try {
    for (const pair of pairs) {
      const tally = tallies.get(pair.kind) ?? { pairs: 0, hits: 0, rightHits: 0, wrongHits: 0, answeredRight: 0, storedNotSolved: 0 };
      tallies.set(pair.kind, tally);
      const stored = await bench.submit(pair.stored);
      if (stored.body.result?.status !== 'succeeded') {
        tally.storedNotSolved += 1;
        continue;
      }
      tally.pairs += 1;
      const twin = await bench.submit(pair.twin);
      const answer = twin.body.result?.status === 'succeeded' ? await finalAnswerOf(bench, twin.body.run_id) : '';
      const right = pair.answer.every((part) => answer.includes(part));
      if (right) tally.answeredRight += 1;
      if (twin.body.result?.outcome === 'hit') {
        tally.hits += 1;
        if (right) tally.rightHits += 1;
        else {
          tally.wrongHits += 1;
          wrong.push(`${pair.kind}: "${pair.stored}" → "${pair.twin}" answered "${answer}", expected ${pair.answer.join(', ')}`);
        }
      }
    }
  } finally {
    await bench.stop();
  }
  console.log(`maths twins bench, seed ${seed}, ${perKind} pairs per kind (a pair counts when its stored problem was solved)`);
  for (const [kind, t] of tallies) {
    const rate = (n: number): string => (t.pairs === 0 ? '-' : (n / t.pairs).toFixed(2));
    console.log(
      `${kind.padEnd(13)} pairs=${String(t.pairs).padStart(3)}  hit rate=${rate(t.hits)}  hits answered in the asker's terms=${t.rightHits}/${t.hits}  ` +
        `WRONG hits=${t.wrongHits}  twin answered right (hit or solved)=${t.answeredRight}/${t.pairs}  stored not solved=${t.storedNotSolved}`,
    );
  }
  for (const line of wrong) console.log(`  wrong: ${line}`);
  if (process.argv.includes('--fail-on-wrong') && wrong.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
