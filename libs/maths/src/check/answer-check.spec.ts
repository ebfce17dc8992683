import { evaluatePrecisely } from '../core/mathjs.js';
import { checkFinalAnswer } from './answer-check.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

describe('checking a model’s final answer', () => {
  it.each([
    ['Solve 2x + 3 = 7', '\\(x = 2\\)'],
    ['Solve 2x + 3 = 7', 'x = \\frac{4}{2}'],
    ['Solve x^2 + 5x + 6 = 0', '\\(x = -2\\) or \\(x = -3\\)'],
    ['Solve x^2 - 2x - 1 = 0', 'x = 1 \\pm \\sqrt{2}'],
    ['Solve x^2 - 2x - 1 = 0', 'x ≈ 2.414 or x ≈ -0.414'],
    ['Solve x^2 + 2x + 5 = 0', 'x = -1 + 2i, x = -1 - 2i'],
    ['Solve the system 2x + y = 5, x - y = 1', 'x = 2, y = 1'],
    ['Solve -2x + 1 <= 7', '\\(x \\geq -3\\)'],
    ['Find the derivative of x^3 + 2x', "f'(x) = 2 + 3x^2"],
    ['Integrate 3x^2 + 2x dx', 'x^3 + x^2 + 7 + C'],
    ['Find the area of a circle with radius 5 cm.', '78.54 cm²'],
    ['Find the area of a circle with radius 5 cm.', '\\(25\\pi\\) cm²'],
    ['Find the limit of 1/(x - 2) as x approaches 2', 'The limit does not exist.'],
    ['Divide 120 in the ratio 2:3.', '48 and 72'],
  ])('agrees with a right answer: %j ← %j', (problem, answer) => {
    expect(checkFinalAnswer(problem, answer).verdict).toBe('agrees');
  });

  it.each([
    ['Solve 2x + 3 = 7', '\\(x = 3\\)'],
    ['Solve x^2 + 5x + 6 = 0', 'x = -2'],
    ['Solve x^2 + 5x + 6 = 0', 'x = 2 or x = 3'],
    ['Solve the system 2x + y = 5, x - y = 1', 'x = 1, y = 3'],
    ['Solve -2x + 1 <= 7', 'x <= -3'],
    ['Find the derivative of x^3 + 2x', '3x^2'],
    ['Find the area of a circle with radius 5 cm.', '78.6 cm²'],
    ['Find the limit of (x^2 - 4)/(x - 2) as x approaches 2', '0'],
  ])('disagrees with a wrong answer: %j ← %j', (problem, answer) => {
    const check = checkFinalAnswer(problem, answer);
    expect(check.verdict).toBe('disagrees');
    if (check.verdict === 'disagrees') expect(check.detail).toMatch(/the maths engine's answer is|substituting/);
  });

  it('substitutes the roots of an equation outside its scope: right roots pass, a wrong one fails', () => {
    expect(checkFinalAnswer('Solve x^3 - 6x^2 + 11x - 6 = 0', 'x = 1, x = 2, x = 3').verdict).toBe('substituted');
    expect(checkFinalAnswer('Solve x^3 - 6x^2 + 11x - 6 = 0', 'x = 1, x = 2, x = 4')).toMatchObject({ verdict: 'disagrees', detail: expect.stringContaining('x = 4') });
    expect(checkFinalAnswer('Solve x^3 - 2 = 0', 'x ≈ 1.26').verdict).toBe('substituted');
  });

  it('given a problem whose maths it does not read whole ("solve fory: sy-4=2y+11"), then a right answer is not judged by the part left over', () => {
    // Substituted into "-4 = 2y + 11" (the maths after the misread "sy"), y = 5 was rejected as invalid output.
    expect(checkFinalAnswer('solve fory: sy-4=2y+11', 'y = 5').verdict).toBe('unchecked');
    expect(checkFinalAnswer('Solve 2,5 + 1,25', '3.75').verdict).toBe('unchecked');
  });

  it('given roots for another unknown than the one solved for, then it disagrees', () => {
    expect(checkFinalAnswer('Solve for k: 3k + 1 = 10', 'x = 3').verdict).toBe('disagrees');
    expect(checkFinalAnswer('Solve for k: 3k + 1 = 10', 'k = 3').verdict).toBe('agrees');
    expect(checkFinalAnswer('Solve x^3 - 6x^2 + 11x - 6 = 0', 'y = 1, y = 2, y = 3').verdict).toBe('disagrees');
  });

  it('given a worded problem answered in the asker\'s terms, then it reads "the number is"', () => {
    expect(checkFinalAnswer('Five more than twice a number is seventeen; find the number', 'The number is 6').verdict).toBe('agrees');
    expect(checkFinalAnswer('Five more than twice a number is seventeen; find the number', 'The number is 7').verdict).toBe('disagrees');
  });

  it('given words its reader does not read as maths (another language), then it gives no verdict and says the answer came from an unverified translation', () => {
    const french = checkFinalAnswer("Cinq de plus que le double d'un nombre font dix-sept; trouve le nombre.", 'le nombre est 6');
    expect(french).toMatchObject({ verdict: 'unchecked', unread: expect.any(String) as unknown });
    expect(checkFinalAnswer('Résoudre 2x + 5 = 17', 'x = 6')).toMatchObject({ verdict: 'unchecked', unread: expect.stringContaining('"é"') as unknown });
    // Maths it read but cannot solve is no translation: no verdict, nothing unread. (The engine now
    // rearranges linear formulas, so "Solve for t: v = u + at" is checked; an exponential one is not.)
    const literal = checkFinalAnswer('Make t the subject of A = P*2^t', 't = log2(A/P)');
    expect(literal.verdict).toBe('unchecked');
    expect(literal).not.toHaveProperty('unread');
    // Worded maths it reads is checked against its own reading.
    expect(checkFinalAnswer('Five more than twice a number is seventeen; find the number', 'The number is 6')).not.toHaveProperty('unread');
  });

  it('gives no verdict when it cannot solve or cannot read', () => {
    expect(checkFinalAnswer('Prove that there are infinitely many primes.', 'Euclid’s argument').verdict).toBe('unchecked');
    expect(checkFinalAnswer('Solve 2x + 3 = 7', 'the value two').verdict).toBe('unchecked');
  });

  describe('an exact answer is compared exactly, never as the nearest double (issue 24)', () => {
    // Each was "agrees" before, so a wrong model answer was labelled "checked by the maths engine": the
    // engine's exact answer was compared as a double (3002399751580328.5 is 9007199254740986/3 to a
    // double) with an allowance for floating noise that, at these sizes, spans several decimals.
    it.each([
      ['Solve 3x = 9007199254740986', 'x = 3002399751580328.5'],
      ['Solve 3x = 9007199254740986', 'x = 3002399751580328.6'],
      ['Solve 3x = 1000000000000', 'x = 333333333333.5'],
      ['Evaluate 1000000000000/3', '333333333333.5'],
      ['Solve 7x = 1000000000000000', 'x = 142857142857143'],
      ['Solve 7x = 1000000000000000', 'x = 142857142857142.8'],
      ['Solve x + y = 1000000000000, x - y = 1', 'x = 500000000000.7, y = 499999999999.3'],
      ['Solve 3x > 1000000000000', 'x > 333333333333.5'],
    ])('disagrees: %j ← %j', (problem, answer) => {
      expect(checkFinalAnswer(problem, answer).verdict).toBe('disagrees');
    });

    it.each([
      ['Solve 3x = 9007199254740986', 'x = 3002399751580328.7'],
      ['Solve 3x = 9007199254740986', 'x = 9007199254740986/3'],
      ['Solve 3x = 1000000000000', 'x = 333333333333.33'],
      ['Solve 7x = 1000000000000000', 'x = 142857142857142.9'],
      ['Solve x + y = 1000000000000, x - y = 1', 'x = 500000000000.5, y = 499999999999.5'],
      ['Solve 3x > 1000000000000', 'x > 333333333333.3'],
      ['Solve 3x = 1', 'x = 0.33'],
      ['Solve 3x = 1', 'x = \\frac{2}{6}'],
      ['Solve 8x = -1', 'x = -0.125'],
    ])('agrees with a right answer, exact or rounded: %j ← %j', (problem, answer) => {
      expect(checkFinalAnswer(problem, answer).verdict).toBe('agrees');
    });
  });

  describe('a value that is only a double is compared relative to its size, never within an absolute 10^-9 (issue 24)', () => {
    // Each was "agrees": compared within an absolute 10^-9, any two values smaller than that are one number.
    it.each([
      // The small root as cancellation in doubles computed it (0.000007614 relatively off).
      ['Solve x^2 - 1000000x + 1 = 0', 'x = 999999.999999 or x = 0.000001000007614'],
      // Half the area.
      ['Find the area of a circle with radius 0.00001 cm.', 'π/20000000000 cm²'],
      // Wrong in its twelfth place (±0.000001414214 to 12 d.p.).
      ['Solve x^2 = 0.000000000002', 'x ≈ ±0.000001414213'],
      // An exact form for a value that is not exact: ten times too small.
      ['Solve x^2 - 1000000x + 1 = 0', 'x = 999999.999999 or x = 1/10000000'],
      // Out of the engine's scope, substituted: both sides are below 10^-9 for any small x.
      ['Solve x^3 = 0.000000000000000008', 'x = 0.000003'],
    ])('disagrees: %j ← %j', (problem, answer) => {
      expect(checkFinalAnswer(problem, answer).verdict).toBe('disagrees');
    });

    it.each([
      ['Solve x^2 - 1000000x + 1 = 0', 'x = 500000 ± sqrt(249999999999)'],
      ['Solve x^2 - 1000000x + 1 = 0', 'x = 999999.999999 or x = 0.000001000000000001'],
      ['Solve x^2 - 1000000x + 1 = 0', 'x ≈ 999999.999999 or x ≈ 0.000001'],
      ['Find the area of a circle with radius 0.00001 cm.', 'π/10000000000 cm²'],
      ['Solve x^2 = 0.000000000002', 'x = ±sqrt(0.000000000002)'],
      ['Solve x^2 = 0.000000000002', 'x ≈ ±0.000001414'],
    ])('agrees with a right answer, exact or rounded: %j ← %j', (problem, answer) => {
      expect(checkFinalAnswer(problem, answer).verdict).toBe('agrees');
    });

    it('substitutes a right root of an equation outside its scope, exact or rounded, however small', () => {
      expect(checkFinalAnswer('Solve x^3 = 0.000000000000000008', 'x = 0.000002').verdict).toBe('substituted');
      expect(checkFinalAnswer('Solve x^3 - 2 = 0', 'x = cbrt(2)').verdict).toBe('substituted');
      expect(checkFinalAnswer('Solve sin(x) = 0', 'x = pi').verdict).toBe('substituted');
    });
  });
});

describe('a written value evaluated to 64 digits', () => {
  it('is the nearest double of the exact value, and leaves factorials and values past a double to doubles', () => {
    expect(evaluatePrecisely('500000 - sqrt(249999999999)')).toBe(1.000000000001e-6);
    // 100000! in 64 digits is a product of 100000 terms (~0.5 s); 10^10^10 is no double.
    expect(evaluatePrecisely('100000!')).toBeUndefined();
    expect(evaluatePrecisely('10^10^10')).toBeUndefined();
    expect(evaluatePrecisely('2 + 3i')).toBeUndefined();
  });
});
