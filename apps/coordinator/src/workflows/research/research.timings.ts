import { RESEARCH_LIMITS } from '@openpaw/contracts';
import { parseJsonSetting } from '@openpaw/platform';
import { z } from 'zod';

/**
 * Time limits of a research run (operations' business, so configurable with
 * `OPENPAW_RESEARCH_TIMINGS_JSON`, e.g. short caps in end-to-end tests). How many retries a run gets
 * is the spec's (2: RESEARCH_LIMITS.maxRetries), not configuration.
 */
export const researchTimingsSchema = z.strictObject({
  /** Hard cap of one leg, from its pickup (the research service aborts the call at it). Spec: 60 min. */
  legCapMs: z.int().positive(),
  /** The synthesis call's cap, from its pickup. */
  synthesisCapMs: z.int().positive(),
  /** How long after its cap the coordinator stops waiting for a leg's (or the synthesis') reply. */
  replyGraceMs: z.int().nonnegative(),
  /**
   * The run deadline of each automated phase (the legs of a round, a synthesis), from its start,
   * queueing included: past it, unfinished legs fail ("deadline") and the matrix decides.
   */
  phaseDeadlineMs: z.int().positive(),
});
export type ResearchTimings = z.infer<typeof researchTimingsSchema>;

export const DEFAULT_RESEARCH_TIMINGS: ResearchTimings = {
  legCapMs: RESEARCH_LIMITS.legCapMs,
  synthesisCapMs: RESEARCH_LIMITS.synthesisCapMs,
  replyGraceMs: 60 * 1000,
  phaseDeadlineMs: 2 * 60 * 60 * 1000,
};

/** The defaults with `OPENPAW_RESEARCH_TIMINGS_JSON` (any part of it) applied; throws when invalid. */
export function researchTimingsFromEnv(env: NodeJS.ProcessEnv): ResearchTimings {
  const patch = parseJsonSetting('OPENPAW_RESEARCH_TIMINGS_JSON', env['OPENPAW_RESEARCH_TIMINGS_JSON'], researchTimingsSchema.partial());
  const timings = patch === undefined ? DEFAULT_RESEARCH_TIMINGS : researchTimingsSchema.parse({ ...DEFAULT_RESEARCH_TIMINGS, ...patch });
  if (timings.phaseDeadlineMs < timings.legCapMs) throw new Error('OPENPAW_RESEARCH_TIMINGS_JSON: phaseDeadlineMs must be at least legCapMs');
  return timings;
}
