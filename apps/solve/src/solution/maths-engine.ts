import { boundedMathsEngine, DEFAULT_MATHS_BUDGET, type EngineSolution, MATHS_ENGINE_ID, MATHS_ENGINE_VERSION, type MathsBudget, type MathsEngine } from '@openpaw/maths/bounded';
import type { SolutionProvenance, StoredAnswer } from '../ports.js';
import type { SolveFailure } from './solve-failure.js';

/**
 * The maths engine's part in a solve: first in the chain (a problem it solves needs no model and
 * costs nothing), then the checker of a model's final answer. Both run on the bounded engine (a
 * worker thread ended at the budget's deadline), so no problem holds the service past its budget.
 */
export async function engineAnswer(problem: string, budget: MathsBudget = DEFAULT_MATHS_BUDGET, engine: MathsEngine = boundedMathsEngine(), startedAt: number = performance.now()): Promise<StoredAnswer | undefined> {
  const outcome = await engine.solve(problem, budget);
  if (!outcome.solved) return undefined;
  return {
    value: { can_solve: true, reason: null, steps: outcome.steps.map((s) => ({ title: s.title, detail: s.detail })), final_answer: outcome.finalAnswer },
    provenance: {
      model: MATHS_ENGINE_ID,
      promptVersion: MATHS_ENGINE_VERSION,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      latencyMs: Math.max(0, performance.now() - startedAt),
      mathsEngine: 'solved',
      mathsEngineVersion: MATHS_ENGINE_VERSION,
      mathsEngineCategory: outcome.category,
      mathsEngineDetail: `checked: ${outcome.verification}`,
    },
  };
}

export type ModelAnswerCheck =
  | { readonly kind: 'accepted'; readonly provenance: SolutionProvenance }
  | { readonly kind: 'rejected'; readonly failure: SolveFailure };

/**
 * A model's final answer, checked where the engine can: agreement is recorded in the provenance;
 * a disagreement fails the attempt (retryable once per run, like any invalid output, so the retry
 * or the fallback model gets its turn); no verdict is recorded as "not checked".
 */
export async function checkModelAnswer(problem: string, finalAnswer: string, provenance: SolutionProvenance, earlierInvalidOutputs: number, budget: MathsBudget = DEFAULT_MATHS_BUDGET, engine: MathsEngine = boundedMathsEngine()): Promise<ModelAnswerCheck> {
  if (provenance.model === MATHS_ENGINE_ID) return { kind: 'accepted', provenance };
  const check = await engine.check(problem, finalAnswer, budget);
  switch (check.verdict) {
    case 'agrees':
      return { kind: 'accepted', provenance: { ...provenance, ...engineRecord(check.engine) } };
    case 'substituted':
      return { kind: 'accepted', provenance: { ...provenance, mathsEngine: 'checked_agrees', mathsEngineVersion: MATHS_ENGINE_VERSION, mathsEngineDetail: clip(check.detail) } };
    case 'unchecked': {
      // The model read the problem's words into maths that the engine's reader did not: its translation is unverified.
      const detail = check.unread === undefined ? check.reason : `${TRANSLATION_UNVERIFIED}: ${check.unread}`;
      return { kind: 'accepted', provenance: { ...provenance, mathsEngine: 'not_checked', mathsEngineVersion: MATHS_ENGINE_VERSION, mathsEngineDetail: clip(detail) } };
    }
    case 'disagrees':
      return { kind: 'rejected', failure: { errorCode: 'invalid_output', retryable: earlierInvalidOutputs === 0, detail: clip(`checked by the maths engine: ${check.detail}`) } };
  }
}

function engineRecord(engine: EngineSolution): Partial<SolutionProvenance> {
  return { mathsEngine: 'checked_agrees', mathsEngineVersion: MATHS_ENGINE_VERSION, mathsEngineCategory: engine.category, mathsEngineDetail: clip(`engine answer: ${engine.finalAnswer}`) };
}

/** A provenance detail at most 500 characters long. */
export function clip(text: string): string {
  return text.length <= 500 ? text : `${text.slice(0, 499)}…`;
}

/** How a model answer's provenance says that the maths it solved was its own reading of the problem's words. */
export const TRANSLATION_UNVERIFIED = 'translation unverified';

/** The footer line of a solution page saying what the maths engine did, if anything. */
export function checkedByNote(provenance: SolutionProvenance): { checkedBy?: string } {
  switch (provenance.mathsEngine) {
    case 'solved':
      return { checkedBy: `Solved offline by the maths engine; answer checked (${provenance.mathsEngineDetail?.replace(/^checked: /, '') ?? 'by substitution'}).` };
    case 'checked_agrees':
      return { checkedBy: 'Final answer checked by the maths engine.' };
    case 'not_checked':
      return provenance.mathsEngineDetail?.startsWith(TRANSLATION_UNVERIFIED) === true
        ? { checkedBy: 'Translation unverified: the maths engine did not read this problem\'s words as maths, so the model\'s reading of them and its answer are not checked.' }
        : {};
    case undefined:
      return {};
  }
}
