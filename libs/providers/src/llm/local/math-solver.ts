import { boundedMathsEngine, type Category, findMaths } from '@openpaw/maths';

/**
 * The local model's worked solutions come from the offline maths engine (libs/maths): the same
 * step generators and checks the solve service runs first in its chain. Anything the engine does
 * not claim is an honest "cannot solve" with its reason.
 */

export interface SolutionStep {
  readonly title: string;
  readonly detail: string;
}

export type MathSolution =
  | {
      readonly canSolve: true;
      readonly kind: Category;
      /** The mathematics that was solved, as the engine read it. */
      readonly problem: string;
      readonly steps: readonly SolutionStep[];
      /** e.g. `84`, `x = 7/3 ≈ 2.333333333`, `60 km/h`. */
      readonly finalAnswer: string;
      /** Set when the answer is a decimal approximation (π, roots, logarithms). */
      readonly approximate: boolean;
    }
  | {
      readonly canSolve: false;
      readonly problem: string | undefined;
      readonly reason: string;
    };

/** Solved on the bounded engine (a worker thread ended at the budget's deadline): no problem holds the process. */
export async function solveMathProblem(text: string): Promise<MathSolution> {
  const problem = problemPart(text);
  const outcome = await boundedMathsEngine().solve(problem);
  if (!outcome.solved) return { canSolve: false, problem: findMaths(problem), reason: outcome.reason };
  return {
    canSolve: true,
    kind: outcome.category,
    problem: outcome.problem,
    steps: outcome.steps.map((s) => ({ title: s.title, detail: s.detail })),
    finalAnswer: outcome.finalAnswer,
    approximate: outcome.finalAnswer.includes('≈'),
  };
}

/** The mathematics in a message (the first statement found), or undefined when it has none. */
export function findMathCandidate(text: string): string | undefined {
  return findMaths(problemPart(text));
}

/** A solve prompt puts the problem after a "Problem:" line; the subject and topic lines before it are not maths. */
function problemPart(text: string): string {
  const marker = text.lastIndexOf('Problem:');
  return marker < 0 ? text : text.slice(marker + 'Problem:'.length).trim();
}
