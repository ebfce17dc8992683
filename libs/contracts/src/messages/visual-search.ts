import { z } from 'zod';
import { freeText } from '../free-text.js';
import { VISUAL_LANE } from '../lanes.js';
import { defineCommand, defineEvent } from '../message-definition.js';

// Visual degrees (spec 03): the commands the visual_degrees saga sends to visual-search, and their
// replies. Every reply carries the `commandId` it answers and the saga's `step`; usage counts let the
// saga charge its budgets. Persons are identified by the recogniser's celebrity id once known (the
// run's first two are known by name only until an image shows them).

export const visualPerson = z.object({
  name: freeText().trim().min(1).max(200),
  /** The recogniser's id (Rekognition `Id`); absent until a recognised image has shown the person. */
  celebrityId: z.string().min(1).max(128).optional(),
});

export const identifiedPerson = z.object({ name: z.string().min(1).max(200), celebrityId: z.string().min(1).max(128) });

const runStep = {
  /** Run memory key prefix `vd.{sessionId}.{runId}`. */
  sessionId: z.string().min(1).max(128),
  runId: z.uuid(),
  /** The saga's step number; with the run id, the service's idempotency key. */
  step: z.int().positive(),
};

/** What the step may still spend; the service stops at these and says so. */
export const visualStepBudget = z.object({
  searchCalls: z.int().nonnegative(),
  recognitionCalls: z.int().nonnegative(),
});

const searchParameters = {
  /** Queries to run, in order (spec: keep the list short). */
  queries: z.array(freeText().trim().min(1).max(300)).min(1).max(6),
  /** Spec: the first 5 images per search. */
  imagesPerQuery: z.int().min(1).max(10),
  /** Spec: 80. */
  threshold: z.number().min(0).max(100),
  budget: visualStepBudget,
};

export const visualStepUsage = z.object({
  searchCalls: z.int().nonnegative(),
  recognitionCalls: z.int().nonnegative(),
  /** Images not recognised again: seen earlier in the run (same URL or near-identical pHash). */
  imagesSkipped: z.int().nonnegative(),
  /** Answered from the evidence cache shared across runs. */
  cacheHit: z.boolean(),
});

export const budgetKind = z.enum(['search', 'recognition']);

/**
 * The world a step searched and recognised in, when it is not the real web: the local demo world of
 * invented people (the offline default), so every answer can say what it comes from.
 */
export const visualWorldInfo = z.object({
  kind: z.literal('local_demo'),
  seed: z.int(),
  /** How many invented people it holds. */
  people: z.int().positive(),
  /** What a person reads, e.g. "local demo world of 24 invented people". */
  description: z.string().min(1).max(200),
});
export type VisualWorldInfo = z.infer<typeof visualWorldInfo>;

/** What a step's reply says of its world: nothing on the real web, the local demo world's description otherwise. */
const worldOfReply = { world: visualWorldInfo.optional() };

/** One image where both persons were recognised. */
export const evidenceImage = z.object({
  imageUrl: z.string().min(1),
  sourcePageUrl: z.string().optional(),
  query: z.string(),
  /** 64-bit DCT pHash, hex. */
  phash: z.string().regex(/^[0-9a-f]{16}$/),
  confidenceFrom: z.number().min(0).max(100),
  confidenceTo: z.number().min(0).max(100),
  /** The blob key of a JPEG thumbnail of the image (≤ 512 px a side, `evidenceThumbnailKey`), when one was stored. */
  thumbnailKey: z.string().min(1).optional(),
  /**
   * The celebrity ids of everyone the recogniser named in the photo (at any confidence), both persons of
   * the edge included: a takedown of anyone pictured, not only of the edge's persons, finds the photo.
   * Absent from replies made before it existed.
   */
  shows: z.array(z.string().min(1).max(128)).max(100).optional(),
});

export const verifiedEdge = z.object({
  from: identifiedPerson,
  to: identifiedPerson,
  /** max over the evidence images of min(confidenceFrom, confidenceTo). */
  edgeConf: z.number().min(0).max(100),
  evidence: z.array(evidenceImage).min(1),
});

/** An image that showed one side (or both below the threshold): the spec's optional partial evidence. */
export const partialEvidence = z.object({
  imageUrl: z.string().min(1),
  sourcePageUrl: z.string().optional(),
  query: z.string(),
  confidenceFrom: z.number().min(0).max(100).nullable(),
  confidenceTo: z.number().min(0).max(100).nullable(),
  /**
   * As an evidence image's `shows`: everyone the recogniser named in the photo, so a takedown of a third
   * person pictured finds the photo in a finished run. Absent from replies made before it existed.
   */
  shows: evidenceImage.shape.shows,
});

export const VerifyEdge = defineCommand(
  'visual-search',
  'VerifyEdge',
  1,
  z.object({
    ...runStep,
    from: visualPerson,
    to: visualPerson,
    ...searchParameters,
    /** The verified chain ending at `from` (for the step log; the chain itself is the saga's, ADR 0029). */
    pathSoFar: z.array(identifiedPerson).max(7).optional(),
  }),
  'Search images of both persons, recognise them, and accept the edge when one image shows both at or above the threshold (S1, S4, S5); answers EdgeVerified, EdgeRefuted or VisualStepFailed.',
  { lane: VISUAL_LANE },
);

export const EdgeVerified = defineEvent(
  'visual',
  'EdgeVerified',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), step: z.int().positive(), edge: verifiedEdge, usage: visualStepUsage, ...worldOfReply }),
  'An edge between two persons is verified by at least one image showing both at or above the threshold.',
);

export const EdgeRefuted = defineEvent(
  'visual',
  'EdgeRefuted',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    step: z.int().positive(),
    from: visualPerson,
    to: visualPerson,
    /** `no_evidence`: every allowed image was looked at; `budget_exhausted`: the step's budget ran out first. */
    reason: z.enum(['no_evidence', 'budget_exhausted']),
    budgetExhausted: budgetKind.optional(),
    partialEvidence: z.array(partialEvidence).max(20),
    usage: visualStepUsage,
    ...worldOfReply,
    /**
     * The local demo world does not know one of the persons (by name): nothing was searched. `names`
     * are the unknown ones as asked, `known` every name the world holds.
     */
    notInWorld: z.object({ names: z.array(z.string()).min(1).max(2), known: z.array(z.string()).max(500) }).optional(),
  }),
  'No image verified the edge.',
);

export const candidateSummary = z.object({
  person: identifiedPerson,
  /** Images in which the candidate co-appears with the frontier, both at or above the threshold. */
  count: z.int().positive(),
  bestConfWithFrontier: z.number().min(0).max(100),
});

export const DiscoverCandidates = defineCommand(
  'visual-search',
  'DiscoverCandidates',
  1,
  z.object({
    ...runStep,
    frontier: visualPerson,
    ...searchParameters,
    /** Celebrity ids never to propose (the path so far, candidates that failed from this frontier). */
    exclude: z.array(z.string().min(1)).max(200),
  }),
  'Search images around the frontier and collect who co-appears with it at or above the threshold (S2); answers CandidatesDiscovered or VisualStepFailed.',
  { lane: VISUAL_LANE },
);

export const CandidatesDiscovered = defineEvent(
  'visual',
  'CandidatesDiscovered',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    step: z.int().positive(),
    /** The frontier, identified when an image showed it. */
    frontier: visualPerson,
    /** In the deterministic fallback order (best confidence, then count, then id); each with the evidence that makes its edge to the frontier verified. */
    candidates: z.array(candidateSummary.extend({ evidence: z.array(evidenceImage).min(1) })).max(50),
    budgetExhausted: budgetKind.optional(),
    usage: visualStepUsage,
    ...worldOfReply,
  }),
  'Candidates co-appearing with the frontier were found (possibly none).',
);

export const SelectNextExpansion = defineCommand(
  'visual-search',
  'SelectNextExpansion',
  1,
  z.object({
    ...runStep,
    target: visualPerson,
    frontier: identifiedPerson,
    candidates: z.array(candidateSummary).min(1).max(50),
    hopsRemaining: z.int().nonnegative(),
    budgetsRemaining: z.object({ searchCalls: z.int().nonnegative(), recognitionCalls: z.int().nonnegative(), llmCalls: z.int().nonnegative() }),
    /** `provider/model`; the service's default when absent. */
    model: z.string().optional(),
  }),
  'Ask the LLM which candidates to expand next, as strict JSON; on invalid output, no LLM budget or LLM failure, the deterministic fallback (S3); answers ExpansionSelected or VisualStepFailed.',
  { lane: VISUAL_LANE },
);

export const ExpansionSelected = defineEvent(
  'visual',
  'ExpansionSelected',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    step: z.int().positive(),
    /** 1–2 candidates, best first. */
    nextCandidates: z.array(identifiedPerson).min(1).max(2),
    searchQueries: z.array(z.string().min(1).max(300)).max(4),
    narration: z.string().max(500),
    decidedBy: z.enum(['llm', 'fallback']),
    /**
     * Why the deterministic ranking chose: the LLM's reply was unusable or failed, no LLM budget is left,
     * no model is configured (the local deterministic model cannot choose, so it is not asked), or the
     * target itself is among the candidates (it is always the choice, no LLM asked).
     */
    fallbackReason: z.enum(['invalid_json', 'invalid_choice', 'llm_unavailable', 'no_llm_budget', 'no_llm_configured', 'target_found']).optional(),
    usage: z.object({ llmCalls: z.int().nonnegative(), costUsd: z.number().nonnegative(), model: z.string().optional() }),
  }),
  'The next expansion was chosen, by the LLM or by the deterministic fallback ranking.',
);

export const visualErrorCode = z.enum(['search_unavailable', 'recognition_unavailable', 'invalid_request']);

export const VisualStepFailed = defineEvent(
  'visual',
  'VisualStepFailed',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    step: z.int().positive(),
    command: z.enum(['VerifyEdge', 'DiscoverCandidates', 'SelectNextExpansion']),
    errorCode: visualErrorCode,
    retryable: z.boolean(),
    /** Sanitised: no keys, no provider bodies. */
    detail: z.string().max(500),
    usage: visualStepUsage,
  }),
  'A visual-search step could not be carried out (a provider stayed unavailable after retries, or the request was invalid).',
);

/**
 * An operator's takedown of one person from visual degrees, sent by the gateway's operations route (the
 * `visual-takedown` tool runs the same handler in process). The recogniser is the service's own: a
 * celebrity id means a person only to the recogniser that issued it.
 */
export const TakeDownVisualPerson = defineCommand(
  'visual-search',
  'TakeDownVisualPerson',
  1,
  z.object({
    /** The recogniser's id of the person (Rekognition `Id`). */
    celebrityId: freeText().trim().min(1).max(128),
    /** As the operator named them, for the record; matching is by id. */
    name: freeText().trim().min(1).max(200).optional(),
    reason: freeText().trim().min(1).max(1000),
    /** Who asked (the operator's user id, or the tool's `--by`). */
    requestedBy: z.string().min(1).max(200),
  }),
  'Take a person down: record it (no step recognises, keeps a picture of, or verifies an edge with them again; every replica within 30 s), purge their pairs from the evidence cache and delete every stored picture showing them; answers VisualPersonTakenDown.',
  { lane: VISUAL_LANE },
);

export const VisualPersonTakenDown = defineEvent(
  'visual',
  'VisualPersonTakenDown',
  1,
  z.object({
    commandId: z.string(),
    /** The recogniser the id belongs to (`local-world`, `rekognition`). */
    recognizer: z.string().min(1),
    celebrityId: z.string().min(1),
    /** Verified and refuted pairs with the person removed from the evidence cache shared by every run. */
    cacheEntriesRemoved: z.int().nonnegative(),
    /** Stored pictures showing the person, deleted (the gateway answers 404 for them from now on). */
    thumbnailsRemoved: z.int().nonnegative(),
    /** When the takedown was recorded (ISO 8601). */
    at: z.string(),
  }),
  'A person was taken down from visual degrees, and the evidence kept of them removed.',
);
