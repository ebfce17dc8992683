export { canonicalForm, canonicalNumber, MathsParseError } from './canonical-form.js';
export { questionIntent } from './intent.js';
export { extractMathsSignature, MATHS_SIGNATURE_VERSION, type MathsExtraction, type MathsIntent, type MathsSignature, type ReadToken } from './maths-signature.js';
