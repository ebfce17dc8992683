import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';
import { problemSignature, retrievalMethod, retrievalMethodV1, retrievalTraceEntry } from './problem.js';

export const SearchSolutions = defineCommand(
  'retrieval',
  'SearchSolutions',
  1,
  z.object({
    runId: z.uuid(),
    signature: problemSignature,
    threshold: z.number().min(0).max(1),
    /** `policy.maths_signature_threshold`: the bar of the maths-signature stage (the service's default when absent). */
    mathsSignatureThreshold: z.number().min(0).max(1).optional(),
    /**
     * The policy's per-method bars (spec 01 "Retrieval Confidence Thresholds"); the service's defaults
     * (the spec's: 1.0, 0.95, 0.99, offset 0.02) when absent.
     */
    methodThresholds: z
      .object({
        exactPhash: z.number().min(0).max(1),
        nearDuplicate: z.number().min(0).max(1),
        exactText: z.number().min(0).max(1),
        hybridOffset: z.number().min(0).max(0.5),
      })
      .optional(),
  }),
  'Hybrid search for an existing solution; answers RetrievalHit or RetrievalMiss.',
);

const candidateFields = {
  assetVersionId: z.uuid(),
  problemId: z.uuid(),
  confidence: z.number().min(0).max(1),
};
const candidate = z.object({
  ...candidateFields,
  method: retrievalMethod,
  /**
   * A maths-signature candidate that is the query's problem under a renaming of its unknowns (issue 24):
   * each stored unknown and the asker's name for it. Its stored solution is written in the stored names,
   * so it is never served as it is; absent when the names are the query's own.
   */
  relabel: z
    .array(z.object({ from: z.string().max(40), to: z.string().max(40) }))
    .max(40)
    .optional(),
});
const candidateV1 = z.object({ ...candidateFields, method: retrievalMethodV1 });

export const RetrievalHit = defineEvent(
  'retrieval',
  'RetrievalHit',
  2,
  z.object({ runId: z.uuid(), commandId: z.string(), candidate, trace: z.array(retrievalTraceEntry) }),
  'A solved problem matched at or above the threshold (v2: method may be maths_signature).',
);

export const RetrievalMiss = defineEvent(
  'retrieval',
  'RetrievalMiss',
  2,
  z.object({ runId: z.uuid(), commandId: z.string(), topCandidate: candidate.nullable(), trace: z.array(retrievalTraceEntry) }),
  'Nothing matched at the threshold; carries the best candidate (the near-miss rule needs it; v2: method may be maths_signature).',
);

export const RetrievalHitV1 = defineEvent(
  'retrieval',
  'RetrievalHit',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), candidate: candidateV1, trace: z.array(retrievalTraceEntry) }),
  'Deprecated (use v2): produced beside v2 only while the retrieval setting OPENPAW_RETRIEVAL_REPLIES_V1 is on (default off), except for a maths-signature candidate, which v1 cannot name.',
  { supersededBy: RetrievalHit },
);

export const RetrievalMissV1 = defineEvent(
  'retrieval',
  'RetrievalMiss',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), topCandidate: candidateV1.nullable(), trace: z.array(retrievalTraceEntry) }),
  'Deprecated (use v2): produced beside v2 only while the retrieval setting OPENPAW_RETRIEVAL_REPLIES_V1 is on (default off), except when the best candidate is a maths-signature one, which v1 cannot name.',
  { supersededBy: RetrievalMiss },
);

export const IndexDocument = defineCommand(
  'retrieval',
  'IndexDocument',
  1,
  z.object({ runId: z.uuid(), problemId: z.uuid(), assetVersionId: z.uuid(), signature: problemSignature }),
  'Index a solved problem (exact keys, pHash, keyword, vector); idempotent per asset version.',
);

export const DocumentIndexed = defineEvent(
  'retrieval',
  'DocumentIndexed',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), assetVersionId: z.uuid(), problemId: z.uuid() }),
  'An asset version is searchable.',
);
