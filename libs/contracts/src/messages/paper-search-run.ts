import { z } from 'zod';
import { freeText } from '../free-text.js';
import { checkpoint, decision, paperCollection, scoredPaper, SCHOLARLY_SOURCE_NAMES, scholarlySourceName, strategyOrigin } from './paper-search-model.js';

/**
 * The `paper_search` run (spec 04) as the gateway starts, decides and reads it: its start input, the
 * human input of a checkpoint decision, and its public view. Shared by the coordinator (which
 * validates them in the saga) and the gateway (which validates them at the edge).
 */

/** Spec 04: `max_iterations` defaults to 5. */
export const DEFAULT_MAX_ITERATIONS = 5;
export const MAX_MAX_ITERATIONS = 20;

export const paperSearchOptions = z.strictObject({
  /** Checkpoint 1 (strategy confirmation) is optional: off, the strategy is searched as built. */
  strategyCheckpoint: z.boolean().default(true),
  /** No person in the loop: one automated iteration, approved as organised (spec: "no checkpoint handler"). */
  autoApprove: z.boolean().default(false),
  maxIterations: z.int().min(1).max(MAX_MAX_ITERATIONS).default(DEFAULT_MAX_ITERATIONS),
  /** The sources the strategies may use; default: the coordinator's configured default sources. */
  sources: z
    .array(scholarlySourceName)
    .min(1)
    .max(SCHOLARLY_SOURCE_NAMES.length)
    .refine((names) => new Set(names).size === names.length, 'sources must not repeat')
    .optional(),
});
export type PaperSearchOptions = z.infer<typeof paperSearchOptions>;

/** The `StartRun.input` of a `paper_search` run. */
export const paperSearchStart = z.strictObject({
  query: freeText().trim().min(1).max(2_000),
  options: paperSearchOptions.default({ strategyCheckpoint: true, autoApprove: false, maxIterations: DEFAULT_MAX_ITERATIONS }),
});
export type PaperSearchStart = z.infer<typeof paperSearchStart>;

/** `SubmitRunInput.inputType` of a checkpoint decision. */
export const CHECKPOINT_DECISION_INPUT = 'checkpoint_decision';

/** `SubmitRunInput.payload` of a checkpoint decision: which checkpoint it answers (a stale id is refused). */
export const checkpointDecisionInput = z.strictObject({ checkpointId: z.uuid(), decision });
export type CheckpointDecisionInput = z.infer<typeof checkpointDecisionInput>;

export const PAPER_SEARCH_COMPLETIONS = ['approved', 'auto_approved', 'max_iterations'] as const;

/** One finished iteration: its strategy, what it found and how the person answered. */
export const paperSearchIteration = z.object({
  iteration: z.int().positive(),
  /** Papers in the iteration's collection; null when checkpoint 1 rejected its strategy (nothing searched). */
  resultCount: z.int().nonnegative().nullable(),
  decision: z.enum(['approve', 'edit', 'reject', 'auto_approve']),
  note: z.string().nullable(),
  /** Where the iteration's strategy came from (planner model, local rules, your edit). Absent for iterations recorded before it. */
  strategyOrigin: strategyOrigin.optional(),
});

/** The run's public view (RunStateChanged.view), what `GET /paper-searches/:id` serves. */
export const paperSearchView = z.object({
  status: z.enum(['running', 'waiting', 'completed', 'failed', 'cancelled']),
  state: z.string(),
  query: z.string(),
  options: z.object({ strategyCheckpoint: z.boolean(), autoApprove: z.boolean(), maxIterations: z.int(), sources: z.array(scholarlySourceName) }),
  iteration: z.int().nonnegative(),
  /** The open checkpoint with its payload, while the run waits for a decision. */
  checkpoint: checkpoint.nullable(),
  /** Papers the person marked relevant so far (kept across iterations). */
  accumulatedPapers: z.array(scoredPaper),
  iterations: z.array(paperSearchIteration),
  /** The final collection, once completed. */
  result: paperCollection.nullable(),
  completion: z.enum(PAPER_SEARCH_COMPLETIONS).nullable(),
  error: z.object({ step: z.string(), code: z.string(), detail: z.string() }).nullable(),
  /**
   * The view travels in every RunStateChanged (one NATS message): when its papers would not fit, they
   * are shortened here (abstracts left out; if still too large, rationales and authors after the
   * third too). The run keeps them whole; this says the view's are not.
   */
  papersTrimmed: z.boolean().default(false),
});
export type PaperSearchView = z.infer<typeof paperSearchView>;
