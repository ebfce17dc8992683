// `@openpaw/maths/bounded`: the engine behind a deadline, for a service's thread. Nothing here loads the
// engine itself (mathjs, nerdamer: ~110 MB); only the engine's worker processes do.
export {
  BoundedMathsEngine,
  boundedMathsEngine,
  configureBoundedMathsEngine,
  DEADLINE_GRACE_MILLIS,
  defaultEngineWorkers,
  MAX_ENGINE_WORKERS,
  type BoundedEngineOptions,
  type MathsEngine,
} from './engine-pool.js';
export { DEFAULT_MATHS_BUDGET, type MathsBudget } from '../core/budget-limits.js';
export { MATHS_ENGINE_ID, MATHS_ENGINE_VERSION } from '../engine-id.js';
export type { AnswerCheck } from '../check/answer-check.js';
export type { EngineOutcome, EngineSolution } from '../types.js';
