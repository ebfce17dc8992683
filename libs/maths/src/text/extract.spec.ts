import { mathStatements } from './extract.js';
import { normaliseMaths } from './normalise.js';

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

  it('reads a bare log as base 10 and log_b with its base', () => {
    expect(normaliseMaths('log(100) + log_2(8) + ln(x)')).toBe('log10(100) + log(8, 2) + log(x)');
  });
});
