export { findMaths, MATHS_ENGINE_ID, MATHS_ENGINE_VERSION, solveProblem } from './engine.js';
export { checkFinalAnswer, type AnswerCheck } from './check/answer-check.js';
export { CATEGORIES, type Answer, type Category, type EngineDecline, type EngineOutcome, type EngineSolution, type Intent, type Step } from './types.js';
export { askedFor } from './text/asked-for.js';
export { foldLookalikes, normaliseMaths } from './text/normalise.js';
export { strayToken } from './text/stray-tokens.js';
export { ambiguousComma } from './text/extract.js';
export { readWorded, WORDED_UNKNOWN, type WordedReading, type WordedResult } from './text/worded.js';
export { roundingAsked, type Rounding } from './solvers/rounding.js';
