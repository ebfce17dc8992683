import { KEYLESS_SCHOLARLY_SOURCES, SCHOLARLY_SOURCE_NAMES, scholarlySourceName } from '@openpaw/contracts';
import { parseJsonSetting } from '@openpaw/platform';
import { z } from 'zod';

const timeoutMs = z.int().positive();

/**
 * How long the paper-search steps may take and how they are retried (operations' business, so
 * configurable with `OPENPAW_PAPER_SEARCH_JSON`, e.g. short in end-to-end tests), and the sources a
 * run uses when its submission names none (the research service reports an unconfigured one as
 * failed in the collection's metadata, so the default lists what the deployment configures).
 */
export const paperSearchSettingsSchema = z.strictObject({
  /** Per skill, from the command's pickup (its lane may be busy: ADR 0010). */
  timeoutsMs: z.strictObject({
    parse_intent: timeoutMs,
    build_strategy: timeoutMs,
    search_sources: timeoutMs,
    deduplicate: timeoutMs,
    score: timeoutMs,
    organise: timeoutMs,
  }),
  /** Retries of a step that timed out or failed retryably (a parser failure that is not retryable fails at once). */
  retries: z.int().min(0).max(10),
  backoff: z.strictObject({ baseMs: z.int().positive(), factor: z.number().min(1), maxMs: z.int().positive() }),
  /**
   * The deadline of a working stretch (from the start or a decision to the next checkpoint or the end):
   * runs wait at checkpoints for days, but the machine's part of a run never hangs.
   */
  stretchDeadlineMs: z.int().positive(),
  defaultSources: z
    .array(scholarlySourceName)
    .min(1)
    .max(SCHOLARLY_SOURCE_NAMES.length)
    .refine((names) => new Set(names).size === names.length, 'defaultSources must not repeat'),
});
export type PaperSearchSettings = z.infer<typeof paperSearchSettingsSchema>;

export const DEFAULT_PAPER_SEARCH_SETTINGS: PaperSearchSettings = {
  timeoutsMs: { parse_intent: 120_000, build_strategy: 120_000, search_sources: 120_000, deduplicate: 30_000, score: 300_000, organise: 120_000 },
  retries: 2,
  backoff: { baseMs: 2_000, factor: 2, maxMs: 30_000 },
  stretchDeadlineMs: 30 * 60_000,
  // The user's own library, and the keyless sources the research service enables by default
  // (KEYLESS_SCHOLARLY_SOURCES): a new user finds papers without configuring anything. A source the
  // research service does not have, or cannot reach, is reported per source in the run's view.
  defaultSources: ['library', ...KEYLESS_SCHOLARLY_SOURCES],
};

const SETTING = 'OPENPAW_PAPER_SEARCH_JSON';

const patchSchema = paperSearchSettingsSchema.partial().extend({ timeoutsMs: paperSearchSettingsSchema.shape.timeoutsMs.partial().optional() });

/** The defaults with `OPENPAW_PAPER_SEARCH_JSON` (any part of it) applied; throws naming what is invalid. */
export function paperSearchSettingsFromEnv(env: NodeJS.ProcessEnv): PaperSearchSettings {
  const patch = parseJsonSetting(SETTING, env[SETTING], patchSchema);
  if (patch === undefined) return DEFAULT_PAPER_SEARCH_SETTINGS;
  const d = DEFAULT_PAPER_SEARCH_SETTINGS;
  return paperSearchSettingsSchema.parse({ ...d, ...patch, timeoutsMs: { ...d.timeoutsMs, ...patch.timeoutsMs } });
}
