export { canonicalForm, MathsParseError, statementsOf } from './canonical-form.js';
export { questionIntent } from './intent.js';
export { extractMathsSignature, MATHS_SIGNATURE_VERSION, type MathsExtraction, type MathsIntent, type MathsSignature, type ReadToken } from './maths-signature.js';
export { canonicalNumber, type MathsRun, mathsRuns } from './maths-tokens.js';
export { rewriteWordOperators } from './word-operators.js';
