import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { DEFAULT_MATHS_BUDGET, MAX_ENGINE_WORKERS, type MathsBudget } from '@openpaw/maths/bounded';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { z } from 'zod';

/** The solve service's settings, from the environment (validated at start). */
export interface SolveSettings {
  /**
   * The environment as read once at start, for the provider factories (`create*FromEnv` of
   * `@openpaw/providers`, each validating its own variables): nothing reads `process.env` later.
   */
  readonly providerEnv: Readonly<Record<string, string | undefined>>;
  /**
   * NATS servers, stream provisioning, the command lanes this process consumes and their concurrency
   * (`OPENPAW_NATS_URL`, `OPENPAW_STREAMS_*`, `OPENPAW_LANES`, `OPENPAW_LANE_CONCURRENCY`).
   */
  readonly messaging: ServiceMessagingSettings;
  readonly databaseUrl: string;
  readonly poolSize: number;
  /** Output token limit of the solve call (also what the cost cap reserves per call). */
  readonly maxTokens: number;
  /** Per model attempt; the LLM client's default when unset. */
  readonly llmTimeoutMs: number | undefined;
  /**
   * The whole attempt's deadline, across retries and fallbacks; past it the attempt answers `timeout`.
   * Keep it below the coordinator's GenerateSolution step timeout (120 s by default), so the answer
   * arrives before the coordinator gives up on the try.
   */
  readonly deadlineMs: number;
  /**
   * How long a delivery's claim on an attempt holds without a renewal: the live holder renews it
   * every `claimRenewEveryMs`, so this is how soon a crashed holder's attempt is taken over.
   */
  readonly claimLeaseMs: number;
  /** How often the live holder renews its claim; at most half the lease, so one failed renewal is retried in time. */
  readonly claimRenewEveryMs: number;
  /**
   * `first`: the offline maths engine answers what it can solve (cost 0) and checks the models'
   * answers to the rest; `check`: models answer everything and the engine only checks them (for
   * deployments that want a model's explanations).
   */
  readonly mathsEngine: 'first' | 'check';
  /**
   * The work one engine solve or check may do (`OPENPAW_SOLVE_MATHS_BUDGET_STEPS`, `OPENPAW_SOLVE_MATHS_BUDGET_MS`):
   * a problem past it is refused as "too much work" (and goes to the models).
   */
  readonly mathsBudget: MathsBudget;
  /**
   * Engine worker processes the service keeps warm (`OPENPAW_SOLVE_MATHS_WORKERS`, 1 to 16): solves and
   * checks past it wait for a free worker. Undefined: the engine's default (the cores less one, 1 to 4).
   */
  readonly mathsWorkers: number | undefined;
  /**
   * The model that translates a problem's words into maths for the engine (`OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL`,
   * `provider/model`; `local/deterministic` is the local default model): its translation must agree with the
   * engine's own reader, or the answer is labelled "translation unverified" and never recorded as checked.
   * Undefined: no translation (the engine reads the words itself).
   */
  readonly mathsTranslationModel: string | undefined;
}

export const SOLVE_SCHEMA = 'solve';

const envSchema = z
  .object({
    OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
    OPENPAW_SOLVE_POOL_SIZE: z.coerce.number().int().positive().default(4),
    OPENPAW_SOLVE_MAX_TOKENS: z.coerce.number().int().positive().default(2_000),
    OPENPAW_SOLVE_LLM_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
    OPENPAW_SOLVE_DEADLINE_MS: z.coerce.number().int().positive().default(100_000),
    OPENPAW_SOLVE_CLAIM_LEASE_MS: z.coerce.number().int().positive().default(15_000),
    OPENPAW_SOLVE_CLAIM_RENEW_MS: z.coerce.number().int().positive().default(5_000),
    OPENPAW_SOLVE_MATHS_ENGINE: z.enum(['first', 'check']).default('first'),
    OPENPAW_SOLVE_MATHS_BUDGET_STEPS: z.coerce.number().int().positive().default(DEFAULT_MATHS_BUDGET.steps),
    OPENPAW_SOLVE_MATHS_BUDGET_MS: z.coerce.number().int().positive().default(DEFAULT_MATHS_BUDGET.millis),
    OPENPAW_SOLVE_MATHS_WORKERS: z.coerce.number().int().min(1).max(MAX_ENGINE_WORKERS).optional(),
    OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL: z.string().regex(/^[a-z]+\/\S+$/, 'must be provider/model, e.g. local/deterministic or openai/gpt-4o-mini').optional(),
  })
  .refine((e) => e.OPENPAW_SOLVE_CLAIM_RENEW_MS * 2 <= e.OPENPAW_SOLVE_CLAIM_LEASE_MS, {
    path: ['OPENPAW_SOLVE_CLAIM_RENEW_MS'],
    message: 'must be at most half of OPENPAW_SOLVE_CLAIM_LEASE_MS, so a failed renewal is retried before the lease expires',
  });

/** Reads the settings; throws naming every invalid variable. */
export function solveSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SolveSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid solve configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('solve'));
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    poolSize: e.OPENPAW_SOLVE_POOL_SIZE,
    maxTokens: e.OPENPAW_SOLVE_MAX_TOKENS,
    llmTimeoutMs: e.OPENPAW_SOLVE_LLM_TIMEOUT_MS,
    deadlineMs: e.OPENPAW_SOLVE_DEADLINE_MS,
    claimLeaseMs: e.OPENPAW_SOLVE_CLAIM_LEASE_MS,
    claimRenewEveryMs: e.OPENPAW_SOLVE_CLAIM_RENEW_MS,
    mathsEngine: e.OPENPAW_SOLVE_MATHS_ENGINE,
    mathsBudget: { steps: e.OPENPAW_SOLVE_MATHS_BUDGET_STEPS, millis: e.OPENPAW_SOLVE_MATHS_BUDGET_MS },
    mathsWorkers: e.OPENPAW_SOLVE_MATHS_WORKERS,
    mathsTranslationModel: e.OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL,
  };
}
