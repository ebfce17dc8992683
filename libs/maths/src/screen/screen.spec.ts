import fc from 'fast-check';
import { findMaths } from '../engine.js';
import { mayHoldMaths } from './index.js';

describe('mayHoldMaths: prose the engine would find no maths in, told apart without loading it', () => {
  it('is true wherever the engine finds maths, words for operators included', () => {
    for (const text of ['Solve 3(x - 2) = 12', 'What is seven times six?', 'x squared plus one', 'sqrt(y) = 3', 'Evaluate 2 + 3 × 4', 'the derivative of sin(x)', 'y > x', 'five plus five']) {
      if (findMaths(text) !== undefined) expect({ text, may: mayHoldMaths(text) }).toEqual({ text, may: true });
    }
    expect(mayHoldMaths('What is seven times six?')).toBe(true);
  });

  it('is false for prose without a digit, an operator, a relation or a function applied', () => {
    for (const text of ['Where does the Calvin cycle take place?', 'Summarise the notes on chloroplasts and the thylakoid.', 'Create a quiz on photosynthesis']) {
      expect(mayHoldMaths(text)).toBe(false);
      expect(findMaths(text)).toBeUndefined();
    }
  });

  it('never says no where the engine finds maths (generated text from words, signs and digits)', () => {
    const word = fc.constantFrom('solve', 'x', 'y', 'plus', 'minus', 'times', 'over', 'squared', 'cubed', 'root', 'of', 'sin', 'equals', 'is', 'the', 'cell', 'seven', 'half', 'per', 'cent', 'divided', 'by', 'to', 'power', 'pi', 'π', '√', '²', '×', '÷', '−', '=', '(', ')', '2', '3.5', ',', '.');
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), (words) => {
        const text = words.join(' ');
        return findMaths(text) === undefined || mayHoldMaths(text);
      }),
      { numRuns: 3000, seed: 26 },
    );
  });
});
