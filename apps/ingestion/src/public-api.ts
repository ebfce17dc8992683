/*
 * The ingestion service's public face for code outside the service (benches): the domain functions
 * that turn a submission into a problem signature. Nothing else of `src/` is imported from outside;
 * lint holds benches to this file.
 */
export { canonicalRendition } from './domain/canonical-rendition.js';
export { normaliseImage } from './domain/image-normalisation.js';
export { LOW_QUALITY_THRESHOLD, pdqQuality } from './domain/image-quality.js';
export { ingestProblem, type IngestionOutcome } from './domain/ingest-problem.js';
export { createOcrReader, OCR_READERS, type OcrSettings } from './media/ocr-reader.js';
export { type IngestionPorts } from './domain/ingest-problem.js';
export { dctPhash, hammingDistance, PHASH_VERSION } from './domain/phash.js';
export { computeProblemSignature, type ProblemSignature } from './domain/problem-signature.js';
export { normaliseText } from './domain/text-normalisation.js';
export { extractMathsSignature, MATHS_SIGNATURE_VERSION } from './domain/maths-signature/index.js';
export { toContractSignature } from './media/contract-signature.js';
