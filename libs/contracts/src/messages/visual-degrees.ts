import { z } from 'zod';
import { freeText } from '../free-text.js';

/** Spec 03's fixed parameters (MVP defaults): the hop limit is also the most a request may ask for. */
export const VISUAL_DEGREES_MAX_HOPS = 6;

/** The longest `maxRuntimeMs` a run may ask for: spec 03's KV TTL (10–30 minutes) must outlive the run. */
export const VISUAL_DEGREES_MAX_RUNTIME_MS = 30 * 60_000;

/** Trims and collapses spaces (spec S0). */
export function normalisePersonName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/**
 * A name's identity for comparison, the one used by the saga and the service alike: normalised (S0),
 * then case- and accent-insensitive ("Beyoncé" and "beyonce" are one person known by name only).
 */
export function personNameKey(name: string): string {
  return normalisePersonName(name).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

const personName = freeText()
  .transform(normalisePersonName)
  .pipe(z.string().min(1, 'a name is required').max(200));

export const visualDegreesOptions = z.strictObject({
  /** At most spec 03's 6. */
  maxHops: z.int().min(1).max(VISUAL_DEGREES_MAX_HOPS).optional(),
  maxSearchCalls: z.int().min(1).max(100).optional(),
  maxRecognitionCalls: z.int().min(1).max(600).optional(),
  maxLlmCalls: z.int().min(0).max(50).optional(),
  /** At most 30 minutes: the life of visual-search's run memory (its KV bucket's TTL), so no key of a run expires while it runs. */
  maxRuntimeMs: z.int().min(1_000).max(VISUAL_DEGREES_MAX_RUNTIME_MS).optional(),
  /**
   * `meet_in_the_middle` (spec 03's optional frontier strategy, the default) grows a chain from `from`
   * and one from `to`, always expanding the shorter one (a dead end on one side lets the other carry on),
   * and bridges the two ends; `one_sided` (the spec's MVP) expands from `from` only.
   */
  strategy: z.enum(['one_sided', 'meet_in_the_middle']).optional(),
  /** `provider/model` for the selection; the service's default when absent. */
  model: freeText().min(1).max(200).optional(),
});

/**
 * The input of a `visual_degrees` run (spec 03): two persons and optional limits. Not a message: what
 * the gateway validates (`POST /visual-degrees`) and the saga starts from.
 */
export const visualDegreesRequest = z
  .strictObject({
    from: personName,
    to: personName,
    /** Run memory key prefix `vd.{sessionId}.{runId}`; the run's user when absent. */
    // Free text: a NUL here was accepted and the run never became visible (the OpenAPI fuzz found it).
    sessionId: freeText().min(1).max(128).optional(),
    options: visualDegreesOptions.optional(),
  })
  // A chain from a person to themselves is no question (it could only "succeed" as a loop A → X → A).
  .refine((request) => personNameKey(request.from) !== personNameKey(request.to), { path: ['to'], message: '`to` must name someone other than `from`' });
export type VisualDegreesRequest = z.input<typeof visualDegreesRequest>;

/**
 * Why a `visual_degrees` run ended without a path (S7): the `no_path` event's and the view's
 * `failure.reason`. `unknown_person`: the local demo world knows nobody by a name asked;
 * `not_a_public_figure`: A (or B meeting in the middle) was in none of the photos their own discovery
 * read, so the celebrity recogniser does not know them; `person_taken_down`: A or B was taken down
 * while the run searched (it stops, their name redacted); `step_failed`: a step failed for good (the
 * `error` event says why); `unexpected_error`: the workflow's own decision threw.
 */
export const VISUAL_DEGREES_NO_PATH_REASONS = [
  'hop_limit_reached',
  'no_candidates',
  'search_budget_exhausted',
  'recognition_budget_exhausted',
  'runtime_budget_exhausted',
  'unknown_person',
  'not_a_public_figure',
  'step_failed',
  'person_taken_down',
  'unexpected_error',
] as const;
export type VisualDegreesNoPathReason = (typeof VISUAL_DEGREES_NO_PATH_REASONS)[number];

/** The spec's streaming event types (and `cancelled`, the owner's cancel), in the run's view and on its SSE stream. */
export const VISUAL_DEGREES_EVENT_TYPES = ['status', 'evidence', 'path_update', 'final', 'no_path', 'error', 'cancelled'] as const;
