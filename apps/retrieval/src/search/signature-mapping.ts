import { type IndexDocument, isTextDominant, type MessageData, type ProblemSignature, type retrievalMethod, type retrievalTraceEntry } from '@openpaw/contracts';
import type { z } from 'zod';
import { CONFIDENCE, type RetrievalQuery, type SearchStage, type TraceEntry } from '../domain/hybrid-search.js';
import type { DocumentMaths, ProblemDocument } from '../domain/problem-catalog.js';

export type RetrievalMethod = z.infer<typeof retrievalMethod>;
export type RetrievalTraceEntry = z.infer<typeof retrievalTraceEntry>;

export { isTextDominant, TEXT_DOMINANT_MIN_CHARS, TEXT_DOMINANT_MIN_CONFIDENCE } from '@openpaw/contracts';

/** The maths signature as retrieval keeps it (the canonical form, hash, intent, numbers, reading confidence, unknowns' names and version). */
export function mathsOf(signature: ProblemSignature): DocumentMaths | undefined {
  const { maths } = signature;
  if (maths === undefined) return undefined;
  return {
    hash: maths.hash,
    canonical: maths.canonical,
    intent: maths.intent,
    numbers: [...maths.numbers],
    confidence: maths.confidence,
    ...(maths.unknowns === undefined ? {} : { unknowns: [...maths.unknowns] }),
    version: maths.version,
  };
}

/** A query's maths: what is indexed, plus the hash under the version before when an older producer sent one (never looked up). */
function queryMathsOf(signature: ProblemSignature): DocumentMaths | undefined {
  const { maths } = signature;
  const kept = mathsOf(signature);
  if (maths === undefined || kept === undefined) return undefined;
  return { ...kept, ...(maths.previousHash === undefined ? {} : { previousHash: maths.previousHash }) };
}

/** What hybrid search looks for, from the signature a SearchSolutions command carries. */
export function queryFromSignature(signature: ProblemSignature): RetrievalQuery {
  const textDominant = isTextDominant(signature);
  return {
    normalisedText: signature.normalizedText,
    textSha256: signature.textSha256,
    ...(signature.imageSha256 === undefined ? {} : { imageSha256: signature.imageSha256 }),
    ...(signature.phash === undefined ? {} : { phash: signature.phash }),
    ...(signature.phashVersion === undefined ? {} : { phashVersion: signature.phashVersion }),
    ...(signature.imageQuality === undefined ? {} : { quality: signature.imageQuality }),
    ...(textDominant === undefined ? {} : { textDominant }),
    ...(signature.maths === undefined ? {} : { maths: queryMathsOf(signature) }),
  };
}

/**
 * What the catalogue stores for an IndexDocument command. The quality is rounded as the catalogue's
 * smallint column stores it, so a redelivered command compares equal and is reported unchanged.
 */
export function documentFromIndexCommand(data: MessageData<typeof IndexDocument>): ProblemDocument {
  const { signature } = data;
  const textDominant = isTextDominant(signature);
  return {
    assetVersionId: data.assetVersionId,
    problemId: data.problemId,
    normalisedText: signature.normalizedText,
    textSha256: signature.textSha256,
    ...(signature.imageSha256 === undefined ? {} : { imageSha256: signature.imageSha256 }),
    ...(signature.phash === undefined ? {} : { phash: signature.phash }),
    ...(signature.phashVersion === undefined ? {} : { phashVersion: signature.phashVersion }),
    ...(signature.imageQuality === undefined ? {} : { quality: Math.round(signature.imageQuality) }),
    ...(textDominant === undefined ? {} : { textDominant }),
    subject: signature.topicTags.subject,
    keywords: [...signature.topicTags.keywords],
    ...(signature.maths === undefined ? {} : { maths: mathsOf(signature) }),
  };
}

/** The contract's method for a search stage: the pHash stage is an exact match at 1.0, a near duplicate below. */
export function methodOf(stage: SearchStage, confidence: number): RetrievalMethod {
  switch (stage) {
    case 'exact_image':
      return 'exact_image';
    case 'phash':
      return confidence >= CONFIDENCE.exactPhash ? 'exact_phash' : 'near_duplicate';
    case 'exact_text':
      return 'text_exact';
    case 'maths_signature':
      return 'maths_signature';
    case 'vector':
      return 'vector';
    case 'hybrid':
      return 'hybrid';
  }
}

/** The per-stage trace as the contract carries it: the candidate by asset version, skips spelled out. */
export function traceEntriesOf(trace: readonly TraceEntry[]): RetrievalTraceEntry[] {
  return trace.map((entry) => ({
    stage: entry.stage,
    candidate: entry.candidate?.assetVersionId ?? null,
    score: entry.score === null || !Number.isFinite(entry.score) ? null : entry.score,
    accepted: entry.decision === 'accepted',
    reason: entry.decision === 'skipped' ? `skipped: ${entry.reason}` : entry.reason,
  }));
}
