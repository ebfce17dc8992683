export { findMaths, MATHS_ENGINE_ID, MATHS_ENGINE_VERSION, solveProblem } from './engine.js';
export { checkFinalAnswer, type AnswerCheck } from './check/answer-check.js';
export { CATEGORIES, type Answer, type Category, type EngineDecline, type EngineOutcome, type EngineSolution, type Intent, type Step } from './types.js';
