import fc from 'fast-check';
import { normaliseText } from '../text-normalisation.js';
import { extractMathsSignature, type MathsSignature } from './maths-signature.js';
import { warmUpEngine } from '@openpaw/maths';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

/**
 * Generated pairs (issue 24): a linear system in 1–3 unknowns, each equation a sum of `coefficient·unknown`
 * terms and a constant equal to a number. The first equation gives every unknown a coefficient of its
 * own, so the only renaming that maps the system onto itself is the identity: the bijection a hit uses
 * is then the renaming that made the pair, and a changed target cannot be a symmetry of the problem.
 */
interface Term {
  readonly coefficient: number;
  readonly unknown: number;
}
interface Equation {
  readonly terms: readonly Term[];
  readonly constant: number;
  readonly rhs: number;
}
interface System {
  readonly equations: readonly Equation[];
  readonly unknowns: number;
  readonly asks: number;
}

/** Names that read as unknowns in a sentence ("find k"), never as a constant, a function or a word. */
const NAMES = ['x', 'y', 'z', 'k', 'm', 'p', 'q', 'r', 't', 'u', 'w', 'b', 'c', 'd'];

const system: fc.Arbitrary<System> = fc.integer({ min: 1, max: 3 }).chain((unknowns) =>
  fc.record({
    unknowns: fc.constant(unknowns),
    asks: fc.integer({ min: 0, max: unknowns - 1 }),
    equations: fc
      .tuple(
        fc.uniqueArray(fc.integer({ min: 2, max: 9 }), { minLength: unknowns, maxLength: unknowns }),
        fc.array(fc.array(fc.integer({ min: 2, max: 9 }), { minLength: unknowns, maxLength: unknowns }), { minLength: unknowns - 1, maxLength: unknowns - 1 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: unknowns, maxLength: unknowns }),
        fc.array(fc.integer({ min: 11, max: 60 }), { minLength: unknowns, maxLength: unknowns }),
      )
      .map(([first, rest, constants, rhs]) =>
        [first, ...rest].map((coefficients, e) => ({
          terms: coefficients.map((coefficient, unknown) => ({ coefficient, unknown })),
          constant: constants[e] ?? 1,
          rhs: rhs[e] ?? 11,
        })),
      ),
  }),
);

/** How one problem is written: the names given to the unknowns, and the order of equations, terms and sides. */
interface Writing {
  readonly names: readonly string[];
  readonly equationOrder: readonly number[];
  readonly reversedTerms: boolean;
  readonly swappedSides: boolean;
}

const writing = (unknowns: number): fc.Arbitrary<Writing> =>
  fc.record({
    names: fc.shuffledSubarray(NAMES, { minLength: unknowns, maxLength: unknowns }).chain((names) => fc.shuffledSubarray(names, { minLength: unknowns, maxLength: unknowns })),
    equationOrder: fc.shuffledSubarray(
      Array.from({ length: unknowns }, (_x, i) => i),
      { minLength: unknowns, maxLength: unknowns },
    ),
    reversedTerms: fc.boolean(),
    swappedSides: fc.boolean(),
  });

function text(problem: System, how: Writing): string {
  const equations = how.equationOrder.map((e) => {
    const equation = problem.equations[e];
    if (equation === undefined) throw new Error(`no equation ${e}`);
    const terms = [...equation.terms.map((t) => `${t.coefficient}${how.names[t.unknown] ?? '?'}`), String(equation.constant)];
    const left = (how.reversedTerms ? terms.reverse() : terms).join(' + ');
    return how.swappedSides ? `${equation.rhs} = ${left}` : `${left} = ${equation.rhs}`;
  });
  return `Solve ${equations.join(' and ')}, find ${how.names[problem.asks] ?? '?'}`;
}

function signatureOf(problem: System, how: Writing): MathsSignature {
  const signature = extractMathsSignature(normaliseText(text(problem, how))).signature;
  if (signature === undefined) throw new Error(`no signature for ${text(problem, how)}`);
  return signature;
}

/** The asker's name of each stored unknown, through the hit's bijection `stored.unknowns[i] ↦ asker.unknowns[i]`. */
function bijection(stored: MathsSignature, asker: MathsSignature): Record<string, string> {
  return Object.fromEntries(stored.unknowns.map((name, i) => [name, asker.unknowns[i] ?? '?']));
}

const pairs = system.chain((problem) => fc.tuple(fc.constant(problem), writing(problem.unknowns), writing(problem.unknowns)));

describe('maths signature over generated pairs (issue 24)', () => {
  it('given a pure renaming (and reordering) of a problem, then it hits, and the bijection relabels every unknown and the asked-for one', () => {
    fc.assert(
      fc.property(pairs, ([problem, storedWriting, askerWriting]) => {
        const [stored, asker] = [signatureOf(problem, storedWriting), signatureOf(problem, askerWriting)];
        expect(asker.hash).toBe(stored.hash);
        const relabel = bijection(stored, asker);
        const expected = Object.fromEntries(storedWriting.names.map((name, u) => [name, askerWriting.names[u]]));
        expect(relabel).toEqual(expected);
        expect(relabel[stored.asks ?? '']).toBe(asker.asks);
      }),
      { numRuns: 300 },
    );
  });

  it('given the same equations asking for another unknown, then it never hits', () => {
    const changedTarget = pairs.filter(([problem]) => problem.unknowns > 1).chain(([problem, a, b]) =>
      fc.tuple(fc.constant(problem), fc.constant(a), fc.constant(b), fc.integer({ min: 1, max: problem.unknowns - 1 })),
    );
    fc.assert(
      fc.property(changedTarget, ([problem, storedWriting, askerWriting, shift]) => {
        const other = { ...problem, asks: (problem.asks + shift) % problem.unknowns };
        expect(signatureOf(other, askerWriting).hash).not.toBe(signatureOf(problem, storedWriting).hash);
      }),
      { numRuns: 200 },
    );
  });

  it('given one number changed (a coefficient, a constant or a right-hand side), then it never hits, in any names', () => {
    const changedNumber = pairs.chain(([problem, a, b]) =>
      fc.tuple(
        fc.constant(problem),
        fc.constant(a),
        fc.constant(b),
        fc.integer({ min: 0, max: problem.unknowns - 1 }),
        fc.integer({ min: 0, max: problem.unknowns + 1 }),
        fc.integer({ min: 1, max: 5 }),
      ),
    );
    fc.assert(
      fc.property(changedNumber, ([problem, storedWriting, askerWriting, e, slot, delta]) => {
        const equations = problem.equations.map((equation, i) => {
          if (i !== e) return equation;
          if (slot < problem.unknowns) return { ...equation, terms: equation.terms.map((t, j) => (j === slot ? { ...t, coefficient: t.coefficient + delta } : t)) };
          return slot === problem.unknowns ? { ...equation, constant: equation.constant + delta } : { ...equation, rhs: equation.rhs + delta };
        });
        expect(signatureOf({ ...problem, equations }, askerWriting).hash).not.toBe(signatureOf(problem, storedWriting).hash);
      }),
      { numRuns: 200 },
    );
  });
});
