import { solveProblem } from '../engine.js';
import { ambiguousComma, mathStatements } from './extract.js';
import { normaliseMaths } from './normalise.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

const texts = (problem: string): string[] => mathStatements(normaliseMaths(problem)).map((s) => s.text);

describe('finding the maths in prose', () => {
  it('picks equations, systems and expressions out of sentences', () => {
    expect(texts('Problem 3 of the worksheet: solve 4x - 5 = 11 and show your work.')).toEqual(['3', '4x - 5 = 11']);
    expect(texts('Solve the system 2x + y = 5, x - y = 1')).toEqual(['2x + y = 5', 'x - y = 1']);
    expect(texts('Find the derivative of x² · sin(x)')).toEqual(['x^2 * sin(x)']);
  });

  it('does not read maths that words split into pieces it cannot interpret', () => {
    expect(texts('Find x such that x = 3 mod 5')).toEqual([]);
  });

  it('given a comma between digits, then it names it unless the commas list plain numbers or whole relations', () => {
    // Read as the list 2 | 5 + 1 | 25, "2,5 + 1,25" was answered 6.
    expect(ambiguousComma(normaliseMaths('Evaluate 2,5 + 1,25'))).toBe('2,5');
    expect(ambiguousComma(normaliseMaths('Solve x + 1,5 = 2,5'))).toBe('1,5');
    expect(ambiguousComma(normaliseMaths('Solve x = 3, 5'))).toBe('3,5');
    for (const text of ['Find the mean of 2, 5, 7 and 9', 'Solve x + y = 10, 2x - y = 5', 'Find the midpoint of (1,2) and (3,4)', 'Solve 2,5x + 1 = 6', 'A farm has 1,250 sheep; 2x = 6']) {
      expect(ambiguousComma(normaliseMaths(text))).toBeUndefined();
    }
    expect(solveProblem('Evaluate 2,5 + 1,25')).toMatchObject({ solved: false, reason: expect.stringContaining('"2,5"') });
  });

  it('given an x typed for the times sign between numbers, then it reads it as the maths signature does, and keeps an unknown x', () => {
    // "2 + 3 x 4" was answered 12x + 2 while the signature read 2 + 3 × 4.
    expect(normaliseMaths('Evaluate 2 + 3 x 4')).toBe('Evaluate 2 + 3 * 4');
    expect(normaliseMaths('17x9')).toBe('17 * 9');
    expect(normaliseMaths('(3/4) x (5/6)')).toBe('(3/4) * (5/6)');
    expect(normaliseMaths('(5 + 1) x 4')).toBe('(5 + 1) * 4');
    for (const text of ['Solve 3x + 4 = 10', '3x(x + 1)', 'x^2 + 3x - 4 = 0', 'Solve 2x = 6']) expect(normaliseMaths(text)).toBe(text);
    expect(solveProblem('Evaluate 2 + 3 x 4')).toMatchObject({ solved: true, finalAnswer: '14' });
  });

  it('reads a bare log as base 10 and log_b with its base', () => {
    expect(normaliseMaths('log(100) + log_2(8) + ln(x)')).toBe('log10(100) + log(8, 2) + log(x)');
  });
});
