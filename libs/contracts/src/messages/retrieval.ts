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

/**
 * Withdraw an indexed problem's stored answer from being served (issue 24): its reading changed since
 * it was solved, so the answer may be of another problem. Sent by the maths reading sweep
 * (`tools/maths-reindex.ts`, as the retrieval service's own user). Applied only while the row still
 * holds what the sweep judged (its text and maths key): a re-index in between wins. Idempotent per
 * asset version.
 */
export const WithdrawProblem = defineCommand(
  'retrieval',
  'WithdrawProblem',
  1,
  z.object({
    /** The sweep's run: the reply's correlation. */
    runId: z.uuid(),
    assetVersionId: z.uuid(),
    /** What the row held when the sweep judged it: the withdrawal is skipped when it no longer does. */
    expected: z.object({
      textSha256: z.string().regex(/^[0-9a-f]{64}$/),
      mathsHash: z.string().regex(/^[0-9a-f]{64}$/),
      /** The signature version of that key (absent for rows indexed before versions were kept). */
      mathsVersion: z.string().max(40).optional(),
    }),
    /** Why, recorded with the row (e.g. "maths-sig/v11 reads (< (* x (abs x)) 4), stored (< x 4)"). */
    reason: z.string().min(1).max(1000),
  }),
  'Withdraw an indexed problem from every index of every replica (its stored reading is not today\'s); answers ProblemWithdrawn.',
);

export const ProblemWithdrawn = defineEvent(
  'retrieval',
  'ProblemWithdrawn',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    assetVersionId: z.uuid(),
    /**
     * withdrawn: by this command; already_withdrawn: by an earlier one; changed: re-indexed since the
     * sweep read it (left as it is); not_indexed: no such row.
     */
    outcome: z.enum(['withdrawn', 'already_withdrawn', 'changed', 'not_indexed']),
  }),
  'An indexed problem is no longer served by any tier; every retrieval replica drops it from its in-memory indexes on hearing this.',
);
