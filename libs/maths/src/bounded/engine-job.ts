import { checkFinalAnswer, type AnswerCheck } from '../check/answer-check.js';
import type { MathsBudget } from '../core/budget.js';
import { solveProblem } from '../engine.js';
import type { EngineOutcome } from '../types.js';

/** One call of the engine, as sent to a worker process. */
export type EngineJob =
  | { readonly kind: 'solve'; readonly text: string; readonly budget: MathsBudget }
  | { readonly kind: 'check'; readonly problem: string; readonly finalAnswer: string; readonly budget: MathsBudget };

export type EngineJobResult<J extends EngineJob> = J extends { kind: 'solve' } ? EngineOutcome : AnswerCheck;

/** Runs a job on this thread (a worker's body, and where no worker may be started). */
export function runEngineJob(job: EngineJob): EngineOutcome | AnswerCheck {
  return job.kind === 'solve' ? solveProblem(job.text, job.budget) : checkFinalAnswer(job.problem, job.finalAnswer, job.budget);
}

export interface JobRequest {
  readonly id: number;
  readonly job: EngineJob;
}

export type JobReply = { readonly id: number; readonly result: EngineOutcome | AnswerCheck } | { readonly id: number; readonly error: string };
