import fc from 'fast-check';
import { sameAnswer, solveProblem, warmUpEngine } from '@openpaw/maths';
import { normaliseText } from '../text-normalisation.js';
import { extractMathsSignature } from './maths-signature.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

const hashOf = (text: string): string | undefined => extractMathsSignature(normaliseText(text)).signature?.hash;

describe('absolute-value inequalities in the key (issue 24): a hit only for the same solution set', () => {
  it.each([
    ['Solve |x - 3| < 5', 'Solve 5 > |x - 3|'],
    ['Solve |x - 3| < 5', 'For which values of x is |x - 3| < 5?'],
    ['Solve |2x + 1| >= 3', 'Solve |2x + 1| ≥ 3'],
    ['Solve 2|x - 1| + 3 < 7', 'Solve 3 + 2|x - 1| < 7'],
  ])('%j ≡ %j', (a, b) => {
    expect(hashOf(a)).toBeDefined();
    expect(hashOf(b)).toBe(hashOf(a));
  });

  it.each([
    ['Solve |x - 3| < 5', 'Solve |x - 5| < 3'],
    ['Solve |x - 3| < 5', 'Solve |x - 3| > 5'],
    ['Solve |x - 3| < 5', 'Solve |x - 3| <= 5'],
    ['Solve |x - 3| < 5', 'Solve |x| - 3 < 5'],
    ['Solve |x - 3| < 5', 'Solve 5 < |x - 3|'],
    ['Solve |x - 3| < 5', 'Solve |x - 3| = 5'],
    ['Solve |x - 3| < 2x', 'Solve |2x - 3| < x'],
    // Read as "(x) < 4" before maths-sig/v11: a letter glued to a bar lost its product.
    ['Solve x|x| < 4', 'Solve x < 4'],
  ])('%j ≢ %j', (a, b) => {
    expect(hashOf(a)).not.toBe(hashOf(b));
  });

  it('given two generated absolute-value relations that share a key, then the engine gives them one answer', () => {
    const relation = fc.record({
      a: fc.integer({ min: 1, max: 4 }),
      b: fc.integer({ min: -6, max: 6 }),
      c: fc.integer({ min: 0, max: 6 }),
      op: fc.constantFrom('<', '<=', '>', '>=', '='),
      mirrored: fc.boolean(),
    });
    type Relation = { a: number; b: number; c: number; op: string; mirrored: boolean };
    const textOf = ({ a, b, c, op, mirrored }: Relation): string => {
      const inside = `|${a === 1 ? '' : a}x ${b < 0 ? '-' : '+'} ${Math.abs(b)}|`;
      const flipped = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' }[op]!;
      return mirrored ? `Solve ${c} ${flipped} ${inside}` : `Solve ${inside} ${op} ${c}`;
    };
    // Half the pairs are one relation written the other way round ("c > |…|"), which must share the key.
    const pairs = fc.tuple(relation, relation, fc.boolean()).map(([one, other, mirror]): [Relation, Relation] => (mirror ? [one, { ...one, mirrored: !one.mirrored }] : [one, other]));
    let shared = 0;
    fc.assert(
      fc.property(pairs, ([one, other]) => {
        const [a, b] = [textOf(one), textOf(other)];
        const [first, second] = [solveProblem(a), solveProblem(b)];
        if (!first.solved || !second.solved) throw new Error(`${a} or ${b} refused`);
        if (hashOf(a) !== hashOf(b)) return;
        shared++;
        expect([a, b, sameAnswer(first.answer, second.answer)]).toEqual([a, b, true]);
      }),
      { numRuns: 100, seed: 24 },
    );
    expect(shared).toBeGreaterThan(30);
  });
});
