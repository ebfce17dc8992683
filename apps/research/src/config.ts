import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { z } from 'zod';
import { type ResearchFlowSettings, researchFlowSettingsFromEnv } from './research-flow/config.js';
import { researchLaneConcurrency } from './research-flow/research-lane-concurrency.js';

/** The research service's settings, from the environment (validated at start). */
export interface ResearchSettings {
  /**
   * The environment as read once at start, for the provider factories (`create*FromEnv` of
   * `@openpaw/providers`, each validating its own variables) and the key vault: nothing reads `process.env` later.
   */
  readonly providerEnv: Readonly<Record<string, string | undefined>>;
  /**
   * NATS servers, stream provisioning, the command lanes this process consumes and their concurrency
   * (`OPENPAW_NATS_URL`, `OPENPAW_STREAMS_*`, `OPENPAW_LANES`, `OPENPAW_LANE_CONCURRENCY`).
   */
  readonly messaging: ServiceMessagingSettings;
  readonly databaseUrl: string;
  readonly poolSize: number;
  /** Works asked of each source per strategy query. */
  readonly perSourceLimit: number;
  /** One source's whole search (all its pages) must answer within this; else it is reported as timed out. */
  readonly sourceDeadlineMs: number;
  /**
   * How long a replica's claim on an identical scholarly search holds: the longest another replica
   * waits for its answer before fetching itself (see `SharedResponses.claimMs`). Shorter than
   * `sourceDeadlineMs`, so a replica that waited a claim out still has time to fetch.
   */
  readonly searchClaimMs: number;
  /** Output token limit of each skill's LLM call. */
  readonly maxTokens: number;
  /** Papers scored per LLM call. */
  readonly scoreBatchSize: number;
  /** A skill's whole LLM work (retries and fallbacks included); past it the step answers `timeout`. */
  readonly stepDeadlineMs: number;
  /** Paper-search skill commands handled at once (the `papersearch` lane's concurrency). */
  readonly paperSearchConcurrency: number;
  /** Research legs and syntheses handled at once (the `research` lane's concurrency; see `researchLaneConcurrency`). */
  readonly researchLaneConcurrency: number;
  /** Days a paper-search run's stored paper lists are kept after the run ended (ADR 0031). */
  readonly paperListRetentionDays: number;
  /** How often each replica sweeps the stored lists past their retention. */
  readonly paperListSweepIntervalMs: number;
  /** Spec 05's research flow (legs, synthesis, titles, shares, webhooks). */
  readonly flow: ResearchFlowSettings;
}

export const RESEARCH_SCHEMA = 'research';

const envSchema = z.object({
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_RESEARCH_POOL_SIZE: z.coerce.number().int().positive().default(4),
  OPENPAW_RESEARCH_PER_SOURCE_LIMIT: z.coerce.number().int().positive().max(200).default(25),
  OPENPAW_RESEARCH_SOURCE_DEADLINE_MS: z.coerce.number().int().positive().default(45_000),
  OPENPAW_RESEARCH_SEARCH_CLAIM_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  OPENPAW_RESEARCH_MAX_TOKENS: z.coerce.number().int().positive().default(2_000),
  OPENPAW_RESEARCH_SCORE_BATCH_SIZE: z.coerce.number().int().positive().max(100).default(20),
  OPENPAW_RESEARCH_STEP_DEADLINE_MS: z.coerce.number().int().positive().default(100_000),
  OPENPAW_RESEARCH_PAPER_SEARCH_CONCURRENCY: z.coerce.number().int().positive().max(64).default(4),
  // Exports read a run's stored collection: a month after the run ended, an export falls back to the view's papers.
  OPENPAW_RESEARCH_PAPER_LIST_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  OPENPAW_RESEARCH_PAPER_LIST_SWEEP_INTERVAL_MS: z.coerce.number().int().min(10_000).max(7 * 24 * 3_600_000).default(3_600_000),
}).superRefine((e, ctx) => {
  // A replica that waited out another's claim fetches itself: the source's deadline must leave it time to.
  if (e.OPENPAW_RESEARCH_SEARCH_CLAIM_MS >= e.OPENPAW_RESEARCH_SOURCE_DEADLINE_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['OPENPAW_RESEARCH_SEARCH_CLAIM_MS'],
      message: `must be less than OPENPAW_RESEARCH_SOURCE_DEADLINE_MS (${e.OPENPAW_RESEARCH_SOURCE_DEADLINE_MS}): a search that waited out another replica's claim still fetches within the deadline`,
    });
  }
});

/** Reads the settings; throws naming every invalid variable. */
export function researchSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ResearchSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid research configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('research'));
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    poolSize: e.OPENPAW_RESEARCH_POOL_SIZE,
    perSourceLimit: e.OPENPAW_RESEARCH_PER_SOURCE_LIMIT,
    sourceDeadlineMs: e.OPENPAW_RESEARCH_SOURCE_DEADLINE_MS,
    searchClaimMs: e.OPENPAW_RESEARCH_SEARCH_CLAIM_MS,
    maxTokens: e.OPENPAW_RESEARCH_MAX_TOKENS,
    scoreBatchSize: e.OPENPAW_RESEARCH_SCORE_BATCH_SIZE,
    stepDeadlineMs: e.OPENPAW_RESEARCH_STEP_DEADLINE_MS,
    paperSearchConcurrency: e.OPENPAW_RESEARCH_PAPER_SEARCH_CONCURRENCY,
    researchLaneConcurrency: researchLaneConcurrency(env),
    paperListRetentionDays: e.OPENPAW_RESEARCH_PAPER_LIST_RETENTION_DAYS,
    paperListSweepIntervalMs: e.OPENPAW_RESEARCH_PAPER_LIST_SWEEP_INTERVAL_MS,
    flow: researchFlowSettingsFromEnv(env),
  };
}
