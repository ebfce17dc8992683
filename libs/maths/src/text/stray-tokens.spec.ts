import { seededRandom } from '@openpaw/contracts';
import { solveProblem } from '../engine.js';
import { askedFor } from './asked-for.js';
import { normaliseMaths } from './normalise.js';
import { strayToken } from './stray-tokens.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

describe('a letter run inside or touching the maths', () => {
  it('given the OCR misreading "solve fory: sy-4=2y+11", then it is refused naming "sy", never answered', () => {
    expect(strayToken(normaliseMaths('solve fory: sy-4=2y+11'))).toBe('sy');
    const outcome = solveProblem('solve fory: sy-4=2y+11');
    expect(outcome.solved).toBe(false);
    expect(outcome.solved === false && outcome.reason).toContain('"sy"');
  });

  it('given prose around the maths, units, ordinals and hyphenated words, then nothing is stray', () => {
    for (const text of [
      'A farmer has 12 sheep and buys 5 more. Solve 2x + 3 = 11 and show your work.',
      'A rectangle is 5cm long and 3 cm wide.',
      'The 2nd term of a right-angled triangle problem: solve x + 1 = 4',
      'Solve x + y = 10 and x - y = 2',
      'log10(100) + sqrt(16)',
    ]) {
      expect(strayToken(normaliseMaths(text))).toBeUndefined();
    }
  });

  it('given a letter the maths does not read or a sign it does not read in the maths, then it is refused by name, not cut out', () => {
    // Both were signed as a part of their maths ("-37 < 18", "16 = 98") and taken as read (issue 25's bench).
    expect(strayToken(normaliseMaths('solve for x: 11α-37<18'))).toBe('α');
    expect(strayToken(normaliseMaths('solve for x: 7c ± 16=98'))).toBe('±');
    expect(strayToken(normaliseMaths('Solve 2θ + 30 = 90'))).toBe('θ');
    expect(solveProblem('Solve 7x ± 16 = 98').solved).toBe(false);
  });

  it('given prose punctuation, currency, percent and degrees beside the maths, then nothing is stray', () => {
    for (const text of ['Solve for x: 2x + 3 = 11.', 'A pen costs £3 and a book $12; find 3 × 12 + 3.', 'Find 20% of 50?', 'An angle is 30° more than x; x + 30 = 90!', 'Find x, if 2x = 8']) {
      expect(strayToken(normaliseMaths(text))).toBeUndefined();
    }
  });

  it('given generated junk next to or inside the maths of a solvable equation, then the engine refuses every one', () => {
    const rng = seededRandom(24);
    const int = (lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
    const junkWords = ['qz', 'lo', 'fo', 'rt', 'ss', 'sy', 'abc', 'wq'];
    for (let i = 0; i < 200; i++) {
      const [a, root, b] = [int(2, 9), int(-5, 9), int(1, 20)];
      const v = ['x', 'y', 'n', 'k'][int(0, 3)]!;
      const junk = junkWords[int(0, junkWords.length - 1)]!;
      const pieces = [`${a}${v}`, '+', String(b), '=', String(a * root + b)];
      const at = int(0, pieces.length);
      const glued = rng() < 0.5;
      const text = glued
        ? pieces.map((p, j) => (j === Math.min(at, pieces.length - 1) ? (rng() < 0.5 ? `${junk}${p}` : `${p}${junk}`) : p)).join(' ')
        : [...pieces.slice(0, Math.max(1, Math.min(at, pieces.length - 1))), junk, ...pieces.slice(Math.max(1, Math.min(at, pieces.length - 1)))].join(' ');
      const outcome = solveProblem(`Solve ${text}`);
      expect({ text, solved: outcome.solved }).toEqual({ text, solved: false });
    }
  });
});

describe('the asked-for unknown', () => {
  it.each([
    ['Solve for y: 5y - 4 = 2y + 11', 'y'],
    ['If b = 2a and a + b = 9, find a', 'a'],
    ['Find the value of k if 3k = 12', 'k'],
    ['3t + 1 = 7. What is t?', 't'],
    ['Solve 2n + 1 = 7 for n', 'n'],
    ['What is a number plus 5?', undefined],
    ['Solve 2x + 1 = 5', undefined],
  ])('%j asks for %s', (text, expected) => {
    expect(askedFor(text)).toBe(expected);
  });

  it('given a problem that asks for an unknown its maths does not hold, then it is refused', () => {
    const outcome = solveProblem('Solve for y: 5x - 4 = 2x + 11');
    expect(outcome.solved).toBe(false);
  });

  it('given a solved problem, then the solution opens with the problem as parsed and the asked-for unknown', () => {
    const outcome = solveProblem('Solve for y: 5y - 4 = 2y + 11');
    expect(outcome.solved && outcome.steps[0]?.detail).toBe('solving 5y - 4 = 2y + 11 for y');
    expect(outcome.solved && outcome.answer).toEqual({ kind: 'roots', variable: 'y', roots: [{ re: 5, im: 0, exact: '5' }] });
  });
});

describe('"pi" inside the maths (issue 24)', () => {
  // Each was answered about "r^2" alone: "pi" was read as prose and cut the maths ("Make r the subject of A = pi r^2" → r^2).
  it.each(['Make r the subject of A = pi r^2', 'Evaluate pi r^2', 'Find the area: A = 25 pi'])('given %j, then it is refused naming "pi", never answered about part of it', (problem) => {
    expect(solveProblem(problem)).toMatchObject({ solved: false, reason: expect.stringContaining('"pi"') as unknown });
  });

  it('reads "in terms of pi" in the prose as before', () => {
    expect(solveProblem('Find the area of a circle with radius 3 m, giving your answer in terms of pi')).toMatchObject({ solved: true, finalAnswer: expect.stringContaining('9π m²') as unknown });
  });
});

describe('a sign between two digits that is not a decimal point (issue 24)', () => {
  // Each was solved as "2x + 1 = 7" (x = 3): the sign ended the maths, and "5" after it was dropped.
  it.each(['Solve 2x + 1 = 7٫5', 'Solve 2x + 1 = 7،5', 'Solve 2x + 1 = 7‚5'])('given %j, then it is refused naming the sign, never answered without the digits after it', (problem) => {
    expect(solveProblem(problem)).toMatchObject({ solved: false, reason: expect.stringMatching(/^"[٫،‚]"/) as unknown });
  });

  it('still reads a decimal point, and a ratio written with a colon', () => {
    expect(solveProblem('Solve 2x + 1 = 7.5')).toMatchObject({ solved: true, finalAnswer: 'x = 13/4 = 3.25' });
    expect(solveProblem('Divide 20 in the ratio 3:2')).toMatchObject({ solved: true });
  });
});
