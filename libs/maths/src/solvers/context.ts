import type { MathStatement } from '../text/extract.js';
import type { Category, EngineDecline, Intent } from '../types.js';

/** A problem as every solver sees it. */
export interface ProblemContext {
  /** As submitted. */
  readonly text: string;
  /** Maths in mathjs syntax (see normaliseMaths). */
  readonly normalised: string;
  /** Lower-case normalised text, for wording templates. */
  readonly lower: string;
  readonly intent: Intent | undefined;
  readonly statements: readonly MathStatement[];
  /** The unknown the wording asks for ("make t the subject", "solve for y"), when it names one. */
  readonly asks?: string;
}

export function decline(category: Category, reason: string): EngineDecline {
  return { solved: false, inScope: true, category, reason };
}

/** Inline LaTeX for a step's detail. */
export function m(tex: string): string {
  return `\\(${tex}\\)`;
}
