import type { ProblemSignature as ContractSignature } from '@openpaw/contracts';
import type { MathsSignature } from '../domain/maths-signature/index.js';
import type { ProblemSignature } from '../domain/problem-signature.js';

/**
 * The domain's signature as `ingestion.MediaNormalized` carries it. The contract spells the text
 * `normalizedText` and the quality `imageQuality`; the pHash version travels only with a pHash; the
 * OCR confidence (0..100) is what lets retrieval tell a page of text from a picture with a caption.
 * The domain's `textDominant` flag has no field in the contract (v1): retrieval re-derives it from
 * the OCR confidence and the text, with the same rule.
 */
export function toContractSignature(signature: ProblemSignature, ocrConfidence?: number): ContractSignature {
  return {
    normalizedText: signature.normalisedText,
    textSha256: signature.textSha256,
    ...(signature.imageSha256 === undefined ? {} : { imageSha256: signature.imageSha256 }),
    ...(signature.phash === undefined ? {} : { phash: signature.phash, phashVersion: signature.phashVersion }),
    ...(signature.quality === undefined ? {} : { imageQuality: Math.max(0, signature.quality) }),
    ...(ocrConfidence === undefined || !Number.isFinite(ocrConfidence) ? {} : { ocrConfidence: Math.min(100, Math.max(0, ocrConfidence)) }),
    topicTags: { subject: signature.topicTags.subject, keywords: [...signature.topicTags.keywords] },
    ...(signature.maths === undefined ? {} : { maths: toContractMaths(signature.maths) }),
    // Only a sensitive tag travels (absent reads as standard), so signatures of ordinary problems are unchanged.
    ...(signature.sensitivity?.sensitivity === 'sensitive' ? { contentSensitivity: 'sensitive' as const, sensitivityReasons: [...signature.sensitivity.reasons] } : {}),
  };
}

function toContractMaths(maths: MathsSignature): NonNullable<ContractSignature['maths']> {
  return {
    version: maths.version,
    hash: maths.hash,
    canonical: maths.canonical,
    intent: maths.intent,
    numbers: [...maths.numbers],
    // The contract bounds the names (40 of 40 characters); a problem beyond them travels without its
    // names, and retrieval then never serves it through the maths key (no names to map a renaming through).
    ...(fitsTheContract(maths.unknowns) ? { unknowns: [...maths.unknowns], ...(maths.asks === undefined ? {} : { asks: maths.asks }) } : {}),
    confidence: maths.confidence,
    ...(maths.tokens === undefined ? {} : { tokens: maths.tokens.map((t) => ({ text: t.text, confidence: t.confidence })) }),
  };
}

const fitsTheContract = (names: readonly string[]): boolean => names.length <= 40 && names.every((name) => name.length <= 40);

/** Where the normalised rendition of an image is kept: content-addressed by its pixels, so a re-run writes the same key. */
export function normalizedMediaKey(imageSha256: string): string {
  return `normalized/${imageSha256}.png`;
}
