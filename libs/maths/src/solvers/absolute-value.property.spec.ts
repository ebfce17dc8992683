import fc from 'fast-check';
import { checkFinalAnswer } from '../check/answer-check.js';
import { solveProblem } from '../engine.js';
import type { Answer } from '../types.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

/** A rational n/d (d > 0), exactly. */
interface Fraction {
  readonly n: bigint;
  readonly d: bigint;
}

const fraction = (text: string): Fraction => {
  const [n = '0', d = '1'] = text.split('/');
  return { n: BigInt(n), d: BigInt(d) };
};
const compare = (a: Fraction, b: Fraction): number => Number(a.n * b.d - b.n * a.d);

interface Problem {
  readonly terms: readonly { readonly c: number; readonly a: number; readonly b: number }[];
  readonly p: number;
  readonly q: number;
  readonly op: '=' | '<' | '<=' | '>' | '>=';
  readonly r: number;
}

const coefficient = (c: number, first: boolean): string => `${c < 0 ? (first ? '-' : '- ') : first ? '' : '+ '}${Math.abs(c) === 1 ? '' : Math.abs(c)}`;
const signedNumber = (n: number): string => (n < 0 ? `- ${-n}` : `+ ${n}`);

function textOf({ terms, p, q, op, r }: Problem): string {
  const parts = terms.map(({ c, a, b }, i) => `${coefficient(c, i === 0)}|${coefficient(a, true)}x ${signedNumber(b)}|`);
  if (p !== 0) parts.push(`${coefficient(p, false)}x`);
  if (q !== 0) parts.push(signedNumber(q));
  return `Solve ${parts.join(' ')} ${op} ${r}`;
}

/** (left − right)·d at x = n/d, exactly, straight from the definition of |·|: the truth the engine's answer is held to. */
function scaledDifference({ terms, p, q, r }: Problem, x: Fraction): bigint {
  const abs = (v: bigint): bigint => (v < 0n ? -v : v);
  const sum = terms.reduce((total, { c, a, b }) => total + BigInt(c) * abs(BigInt(a) * x.n + BigInt(b) * x.d), 0n);
  return sum + BigInt(p) * x.n + BigInt(q - r) * x.d;
}

function holds(problem: Problem, x: Fraction): boolean {
  const v = scaledDifference(problem, x);
  return { '=': v === 0n, '<': v < 0n, '<=': v <= 0n, '>': v > 0n, '>=': v >= 0n }[problem.op];
}

/** Whether the engine's answer holds x. */
function member(answer: Answer, x: Fraction): boolean {
  switch (answer.kind) {
    case 'no_solution':
      return false;
    case 'all_values':
      return true;
    case 'roots':
      return answer.roots.some((root) => compare(fraction(root.exact!), x) === 0);
    case 'interval_set':
      return answer.intervals.some(({ from, to }) => (from === undefined || compare(fraction(from.exact), x) < (from.closed ? 1 : 0)) && (to === undefined || compare(x, fraction(to.exact)) < (to.closed ? 1 : 0)));
    default:
      throw new Error(`an absolute-value relation answered as ${answer.kind}`);
  }
}

function endsOf(answer: Answer): Fraction[] {
  if (answer.kind === 'roots') return answer.roots.map((r) => fraction(r.exact!));
  if (answer.kind !== 'interval_set') return [];
  return answer.intervals.flatMap((i) => [i.from?.exact, i.to?.exact]).flatMap((e) => (e === undefined ? [] : [fraction(e)]));
}

const problems = fc.record({
  terms: fc.array(fc.record({ c: fc.integer({ min: -3, max: 3 }).filter((c) => c !== 0), a: fc.integer({ min: -4, max: 4 }).filter((a) => a !== 0), b: fc.integer({ min: -9, max: 9 }) }), { minLength: 1, maxLength: 3 }),
  p: fc.integer({ min: -3, max: 3 }),
  q: fc.integer({ min: -9, max: 9 }),
  op: fc.constantFrom<Problem['op']>('=', '<', '<=', '>', '>='),
  r: fc.integer({ min: -12, max: 12 }),
});

/** Every twelfth from −30 to 30 (every breakpoint −b/a is one), and far out on each side. */
const GRID: Fraction[] = [{ n: -(10n ** 6n), d: 1n }, ...Array.from({ length: 721 }, (_, k) => ({ n: BigInt(k - 360), d: 12n })), { n: 10n ** 6n, d: 1n }];

describe('absolute-value relations, generated, against brute force (exact sampling)', () => {
  it('given sums of absolute values of linear terms, then the answer holds exactly the values that satisfy the relation', () => {
    fc.assert(
      fc.property(problems, (problem) => {
        const text = textOf(problem);
        const outcome = solveProblem(text);
        if (!outcome.solved) throw new Error(`${text}: refused (${outcome.reason})`);
        const ends = endsOf(outcome.answer);
        // Each end and values just beside it, then the grid: the answer and the truth agree at every one.
        const beside = ends.flatMap((e) => [e, { n: e.n * 997n - e.d, d: e.d * 997n }, { n: e.n * 997n + e.d, d: e.d * 997n }]);
        for (const x of [...beside, ...GRID]) {
          if (member(outcome.answer, x) !== holds(problem, x)) throw new Error(`${text} → ${outcome.finalAnswer}: wrong at x = ${x.n}/${x.d}`);
        }
        // Where left − right changes sign between two grid values, the answer has an end (a root) between them.
        for (let i = 1; i < GRID.length; i++) {
          const [low, high] = [GRID[i - 1]!, GRID[i]!];
          const [s, t] = [scaledDifference(problem, low), scaledDifference(problem, high)];
          if ((s < 0n && t > 0n) || (s > 0n && t < 0n)) {
            if (!ends.some((e) => compare(low, e) < 0 && compare(e, high) < 0)) throw new Error(`${text} → ${outcome.finalAnswer}: misses a change between ${low.n}/${low.d} and ${high.n}/${high.d}`);
          }
        }
      }),
      { numRuns: 200, seed: 24 },
    );
  });

  it('given such a relation, then the engine\'s own final answer, read back as a model\'s, agrees with it', () => {
    fc.assert(
      fc.property(problems, (problem) => {
        const text = textOf(problem);
        const outcome = solveProblem(text);
        if (!outcome.solved) throw new Error(`${text}: refused (${outcome.reason})`);
        expect([text, checkFinalAnswer(text, outcome.finalAnswer).verdict]).toEqual([text, 'agrees']);
      }),
      { numRuns: 100, seed: 45 },
    );
  });
});
