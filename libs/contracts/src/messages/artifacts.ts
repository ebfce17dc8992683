import { z } from 'zod';
import { freeText } from '../free-text.js';
import { defineCommand, defineEvent } from '../message-definition.js';

/**
 * Spec 02 (artifact jobs): notebook sources, the retrieval snapshot, and the plan → generate →
 * validate steps of the `artifact_job` workflow, plus grounded chat. Commands go to the artifacts
 * service (`openpaw.cmd.artifacts.*`); its answers are `artifact` events. Replies carry the id of the
 * command they answer (`commandId`) and are published with `deterministicUuid(commandId, subject)`.
 *
 * Spec documents (the snapshot, the plan, the artifact result) keep the spec's snake_case field
 * names: they reach the public API as they are.
 */

export const artifactType = z.enum(['quiz', 'flashcards', 'summary']);
export type ArtifactType = z.infer<typeof artifactType>;

/** A notebook (the chat `session_id`): a user-chosen short id. */
export const notebookId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'letters, digits, `_`, `.`, `:` or `-`, at most 128 characters');

/** Per-type generation options after defaults were applied (they are part of the fingerprint). */
export const artifactOptions = z.strictObject({
  num_questions: z.int().min(1).max(20).optional(),
  difficulty: z.enum(['easy', 'medium', 'hard']).optional(),
  num_cards: z.int().min(1).max(30).optional(),
  num_points: z.int().min(1).max(12).optional(),
});
export type ArtifactOptions = z.infer<typeof artifactOptions>;

/** The options each type uses, with their defaults (a request's options are resolved with these before fingerprinting). */
export const ARTIFACT_OPTION_DEFAULTS = {
  quiz: { num_questions: 5, difficulty: 'medium' },
  flashcards: { num_cards: 10 },
  summary: { num_points: 5 },
} as const satisfies Record<ArtifactType, ArtifactOptions>;

export const snapshotChunk = z.object({
  chunk_id: z.string().min(1),
  source_id: z.string().min(1),
  text: z.string(),
});
export type SnapshotChunk = z.infer<typeof snapshotChunk>;

/**
 * The chunk id of the request's own content, the only chunk of a job whose notebook has no sources
 * (spec 02: "No RAG, use job content"); items of such a job cite it.
 */
export const REQUEST_CHUNK_ID = 'request';

/** RAG chunks captured once when the job is created; the worker never re-queries (spec 02). */
export const retrievalSnapshot = z.object({
  chunks: z.array(snapshotChunk),
  source_ids: z.array(z.string()),
  embedding_version: z.string(),
  captured_at: z.iso.datetime({ offset: true }),
});
export type RetrievalSnapshot = z.infer<typeof retrievalSnapshot>;

/** The planning phase's output: what the artifact will cover, reused as is on retry. */
export const artifactPlan = z.object({
  title: z.string(),
  concepts: z.array(z.string()).min(1),
  created_at: z.iso.datetime({ offset: true }),
  model: z.string(),
});
export type ArtifactPlan = z.infer<typeof artifactPlan>;

const chunkIds = z.array(z.string()).describe('Ids of the snapshot chunks the item came from.');

export const quizQuestion = z.object({
  question: z.string(),
  options: z.array(z.string()),
  correct_answer: z.string(),
  explanation: z.string(),
  chunk_ids: chunkIds,
});
export const quizResult = z.object({ questions: z.array(quizQuestion) });

export const flashcard = z.object({ front: z.string(), back: z.string(), chunk_ids: chunkIds });
export const flashcardsResult = z.object({ flashcards: z.array(flashcard) });

export const summaryPoint = z.object({ point: z.string(), chunk_ids: chunkIds });
export const summaryResult = z.object({
  title: z.string(),
  summary: z.string(),
  key_points: z.array(summaryPoint),
  chunk_ids: chunkIds,
});

/** A generated artifact, in the shape the API returns as `result` (not yet validated semantically). */
export const artifactResult = z.union([quizResult, flashcardsResult, summaryResult]);
export type ArtifactResult = z.infer<typeof artifactResult>;

// ---- sources ----

export const sourceContent = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: freeText().min(1).max(200_000) }),
  z.object({ kind: z.literal('url'), url: z.url({ protocol: /^https?$/ }) }),
  /** An uploaded file in blob storage (bytes never travel in messages). */
  z.object({
    kind: z.literal('file'),
    blobKey: z.string().min(1),
    contentType: z.string().max(200),
    filename: freeText().max(255).optional(),
    byteLength: z.int().nonnegative(),
  }),
]);
export type SourceContent = z.infer<typeof sourceContent>;

export const AddSource = defineCommand(
  'artifacts',
  'AddSource',
  1,
  z.object({
    sourceId: z.uuid(),
    userId: z.string().min(1),
    notebookId,
    title: freeText().max(300).optional(),
    content: sourceContent,
  }),
  "Add (or replace) a notebook source: extract its text, normalise, chunk (stable chunk ids) and index it; answers SourceIndexed or SourceRejected.",
);

export const SourceIndexed = defineEvent(
  'artifact',
  'SourceIndexed',
  1,
  z.object({
    sourceId: z.uuid(),
    commandId: z.string(),
    notebookId,
    title: z.string(),
    kind: z.enum(['text', 'url', 'file']),
    contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
    chunkIds: z.array(z.string()),
    embeddingVersion: z.string(),
    characters: z.int().nonnegative(),
  }),
  'A source is normalised, chunked and searchable; its chunk ids are stable for the same content.',
);

export const SourceRejected = defineEvent(
  'artifact',
  'SourceRejected',
  1,
  z.object({
    sourceId: z.uuid(),
    commandId: z.string(),
    notebookId,
    reason: z.enum(['empty', 'unsupported_type', 'fetch_failed', 'too_large', 'not_found', 'superseded']),
    detail: z.string(),
  }),
  'A source could not be indexed (no text, an unsupported file, an unreachable URL).',
);

// ---- the artifact_job workflow's steps ----

export const CaptureSnapshot = defineCommand(
  'artifacts',
  'CaptureSnapshot',
  1,
  z.object({
    runId: z.uuid(),
    userId: z.string().min(1),
    notebookId,
    /** Sorted; empty means every source of the notebook. */
    sourceIds: z.array(z.uuid()),
    query: freeText(),
    k: z.int().min(1).max(50),
    /**
     * The job's request time (ISO 8601): the snapshot is the one a capture at that moment would
     * have taken (spec 02: "captured at creation"), so a capture that runs later (deferred) leaves
     * out the sources and chunks indexed after it. Absent (older messages): as of the capture.
     */
    asOf: z.iso.datetime({ offset: true }).optional(),
  }),
  "Capture the job's retrieval snapshot (the top chunks for the request, as of `asOf` when given, else at this moment); answers SnapshotCaptured or ArtifactStepFailed.",
);

export const SnapshotCaptured = defineEvent(
  'artifact',
  'SnapshotCaptured',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    /** Null when the notebook has no sources: the worker then uses the request's content (spec 02). */
    snapshot: retrievalSnapshot.nullable(),
  }),
  'The retrieval snapshot of a job, captured once at creation.',
);

const stepCommon = {
  runId: z.uuid(),
  artifactType,
  /** The user's request (the job's `content`). */
  content: z.string(),
  options: artifactOptions,
  /** The snapshot's chunks (or the content as the only chunk): all the worker may use. */
  chunks: z.array(snapshotChunk).min(1),
};

export const PlanArtifact = defineCommand(
  'artifacts',
  'PlanArtifact',
  1,
  z.object({
    ...stepCommon,
    /** The plan stored with the job on a retry: reused, not recomputed. */
    storedPlan: artifactPlan.nullable(),
  }),
  'Phase 1: plan the artifact from the snapshot (or load the stored plan on retry); answers ArtifactPlanned or ArtifactStepFailed.',
);

export const ArtifactPlanned = defineEvent(
  'artifact',
  'ArtifactPlanned',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    plan: artifactPlan,
    /** True when the stored plan was reused (no LLM call). */
    reused: z.boolean(),
    chunksLoaded: z.int().nonnegative(),
  }),
  'Phase 1 done: the plan (concepts) of the artifact.',
);

export const GenerateArtifact = defineCommand(
  'artifacts',
  'GenerateArtifact',
  1,
  z.object({
    ...stepCommon,
    plan: artifactPlan,
    /** 1, or 2 on the retry after a validation failure. */
    generation: z.int().positive(),
    /** Why the previous generation failed validation (fed back to the model on retry). */
    previousError: z.string().nullable(),
  }),
  'Phase 2: generate the artifact from the plan and the snapshot; answers ArtifactGenerated or ArtifactStepFailed.',
);

export const ArtifactGenerated = defineEvent(
  'artifact',
  'ArtifactGenerated',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    generation: z.int().positive(),
    result: artifactResult,
    itemCount: z.int().nonnegative(),
    model: z.string(),
  }),
  'Phase 2 done: the generated artifact, each item citing its chunk ids (not yet validated).',
);

export const ValidateArtifact = defineCommand(
  'artifacts',
  'ValidateArtifact',
  1,
  z.object({
    runId: z.uuid(),
    artifactType,
    options: artifactOptions,
    generation: z.int().positive(),
    result: artifactResult,
    chunks: z.array(snapshotChunk).min(1),
  }),
  "Phase 3: validate the artifact with its type's validator; reports ArtifactJobProgress (90) then answers ArtifactValidated.",
);

export const ArtifactJobProgress = defineEvent(
  'artifact',
  'ArtifactJobProgress',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    phase: z.enum(['planning', 'generating', 'validating']),
    progress: z.int().min(0).max(100),
    detail: z.string(),
  }),
  "The worker's progress inside a phase (validation: checking structure, 90%).",
);

export const ArtifactValidated = defineEvent(
  'artifact',
  'ArtifactValidated',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    generation: z.int().positive(),
    valid: z.boolean(),
    /** The first problem found, e.g. "question 2: correct_answer is not among the options". */
    error: z.string().nullable(),
    errors: z.array(z.string()),
  }),
  'Phase 3 done: whether the artifact passed its validator.',
);

export const ArtifactStepFailed = defineEvent(
  'artifact',
  'ArtifactStepFailed',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    step: z.enum(['snapshot', 'planning', 'generating', 'validating']),
    errorCode: z.enum(['unknown_sources', 'llm_unavailable', 'invalid_output', 'internal']),
    error: z.string(),
  }),
  'A step of an artifact job could not be carried out (unknown sources, the LLM failed).',
);

// ---- grounded chat ----

export const AnswerChat = defineCommand(
  'artifacts',
  'AnswerChat',
  1,
  z.object({
    userId: z.string().min(1),
    notebookId,
    message: freeText().min(1).max(8_000),
    /** Sorted; empty means every source of the notebook. */
    sourceIds: z.array(z.uuid()),
  }),
  'Answer a chat message grounded in the notebook’s sources; answers ChatAnswered or ChatFailed.',
);

export const ChatAnswered = defineEvent(
  'artifact',
  'ChatAnswered',
  1,
  z.object({
    commandId: z.string(),
    notebookId,
    answer: z.string(),
    citations: z.array(z.object({ chunk_id: z.string(), source_id: z.string() })),
    model: z.string(),
  }),
  'A grounded chat answer with the chunks it drew on.',
);

export const ChatFailed = defineEvent(
  'artifact',
  'ChatFailed',
  1,
  z.object({
    commandId: z.string(),
    notebookId,
    errorCode: z.enum(['unknown_sources', 'llm_unavailable', 'internal']),
    error: z.string(),
  }),
  'A chat message could not be answered.',
);

// ---- the artifact_job workflow as the gateway sees it (StartRun input, the run's view) ----

/** FROZEN: the workflow type of artifact jobs (changing it orphans existing runs). */
export const ARTIFACT_JOB_WORKFLOW = 'artifact_job';

/** Spec 02's job states, in order; `completed` and `failed` are terminal. */
export const artifactJobStatus = z.enum(['pending', 'planning', 'generating', 'validating', 'completed', 'failed']);
export type ArtifactJobStatus = z.infer<typeof artifactJobStatus>;

/** `StartRun.input` of an `artifact_job` run. */
export const artifactJobInput = z.strictObject({
  notebook_id: notebookId,
  artifact_type: artifactType,
  /** The user's request (the spec's `job_request.content`). */
  content: freeText().min(1).max(8_000),
  /** Sorted and unique; empty means every source of the notebook. */
  source_ids: z.array(z.uuid()).max(100),
  options: artifactOptions,
  /** sha256(user_id + notebook_id + artifact_type + sorted source_ids + options), hex. */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  /** Which job of this fingerprint this is (1, 2, ...): a new one once the previous one ended. */
  sequence: z.int().positive(),
  /** How the intent router decided (logged as the trace's first line). */
  intent: z.strictObject({ router: z.string(), reason: z.string() }),
  /**
   * The retrieval snapshot the gateway captured while creating the job (spec 02: "at job creation
   * time"); null when the notebook had no sources. Absent: the job captures it as its first step.
   */
  snapshot: retrievalSnapshot.nullable().optional(),
  /**
   * When the gateway accepted the request (ISO 8601): a snapshot the job captures itself (deferred)
   * is taken as of this time. Absent (jobs started before it existed): as of the capture.
   */
  requested_at: z.iso.datetime({ offset: true }).optional(),
});
export type ArtifactJobInput = z.infer<typeof artifactJobInput>;

/** The public view of an `artifact_job` run (published with every state change; GET /ai/artifact/:id reads it). */
export const artifactJobView = z.object({
  job_id: z.uuid(),
  status: artifactJobStatus,
  progress: z.int().min(0).max(100),
  artifact_type: artifactType,
  notebook_id: notebookId,
  source_ids: z.array(z.string()),
  fingerprint: z.string(),
  sequence: z.int().positive(),
  snapshot: z
    .object({
      source_ids: z.array(z.string()),
      chunk_ids: z.array(z.string()),
      embedding_version: z.string(),
      captured_at: z.string(),
    })
    .nullable(),
  plan: artifactPlan.nullable(),
  /** How often the plan was computed by the LLM (stays 1 across a retry: the plan is reused). */
  plan_computations: z.int().nonnegative(),
  /** Validation retries used (at most 1). */
  retries: z.int().nonnegative(),
  result: artifactResult.nullable(),
  error: z.string().nullable(),
  validation_error: z.string().nullable(),
});
export type ArtifactJobView = z.infer<typeof artifactJobView>;
