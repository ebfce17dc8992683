import { solveProblem } from '../engine.js';
import { translationVerdict } from './translation-check.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

/** The verdict as the solve service reaches it: the engine solves the problem and the translation, then compares. */
function verdict(problem: string, translation: string) {
  return translationVerdict(problem, translation, solveProblem(problem), solveProblem(translation));
}

describe('a model translation of worded maths, held against the deterministic reader (issue 24)', () => {
  it.each([
    ['Five more than twice a number is seventeen; find the number', 'Solve 2x + 5 = 17'],
    ['Five more than twice a number is seventeen; find the number', 'Solve 4n + 10 = 34'],
    ['Multiply twelve by thirteen', 'Evaluate 12 * 13'],
    ['Solve 3x = 1', 'Solve 6y = 2'],
  ])('agrees where the translation has the reader\'s answer, whatever letter it names: %j ← %j', (problem, translation) => {
    expect(verdict(problem, translation).verdict).toBe('agrees');
  });

  it.each([
    // Role swap: "twice a number is five more than seventeen" is another equation.
    ['Five more than twice a number is seventeen; find the number', 'Solve 2x = 17 + 5'],
    ['Multiply twelve by thirteen', 'Evaluate 12 + 13'],
    // Near the reader's value, not it.
    ['Solve 3x = 1', 'Solve x = 0.3333333333'],
  ])('is unverified where the translation reads other maths: %j ← %j', (problem, translation) => {
    const check = verdict(problem, translation);
    expect(check).toMatchObject({ verdict: 'unverified', detail: expect.stringContaining("the maths engine's reader read") as unknown });
  });

  it('is unverified where the reader reads no maths in the words, and keeps the translation\'s solution to give labelled', () => {
    const check = verdict("Cinq de plus que le double d'un nombre font dix-sept; trouve le nombre.", 'Solve 2x + 5 = 17');
    expect(check).toMatchObject({ verdict: 'unverified', detail: expect.stringContaining('nothing to compare it with') as unknown, translated: { finalAnswer: 'x = 6' } });
  });

  it('is unverified where the engine cannot solve the translation', () => {
    expect(verdict('Five more than twice a number is seventeen; find the number', 'the number is small')).toMatchObject({ verdict: 'unverified' });
    expect(verdict('Five more than twice a number is seventeen; find the number', 'the number is small')).not.toHaveProperty('translated');
  });
});
