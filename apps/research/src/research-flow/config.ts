import { DEFAULT_MODELS } from '@openpaw/providers';
import { z } from 'zod';

/** The research flow's settings (spec 05), from the environment, validated at start. */
export interface ResearchFlowSettings {
  /** `provider/model` of each keyed provider (legs, synthesis; gemini's also titles drafts). */
  readonly models: { readonly openai: string; readonly anthropic: string; readonly gemini: string };
  /** Output token limit of a leg's call (also what its cost cap reserves). */
  readonly legMaxTokens: number;
  readonly synthesisMaxTokens: number;
  /** A title call's own limit (the fallback answers past it). */
  readonly titleTimeoutMs: number;
  /** Lifetime of a share URL; 0 turns sharing off. GCS caps signed URLs at 7 days. */
  readonly shareTtlSeconds: number;
  /**
   * Users' webhooks: one attempt's time limit, the waits between attempts (the last repeats), attempts
   * before an event is dead-lettered, deliveries in flight per event type, and whether private
   * addresses (loopback, LAN) may be called.
   */
  readonly webhook: {
    readonly timeoutMs: number;
    readonly backoffMs: readonly number[];
    readonly attempts: number;
    readonly concurrency: number;
    readonly allowPrivateAddresses: boolean;
  };
}

const modelId = z.string().regex(/^(openai|anthropic|gemini)\/.+/, 'provider/model');
const envSchema = z.object({
  OPENPAW_RESEARCH_MODELS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return {};
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(z.strictObject({ openai: modelId.optional(), anthropic: modelId.optional(), gemini: modelId.optional() })),
  OPENPAW_RESEARCH_LEG_MAX_TOKENS: z.coerce.number().int().positive().default(4_000),
  OPENPAW_RESEARCH_SYNTHESIS_MAX_TOKENS: z.coerce.number().int().positive().default(4_000),
  OPENPAW_RESEARCH_TITLE_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  OPENPAW_RESEARCH_SHARE_TTL_SECONDS: z.coerce.number().int().min(0).max(7 * 24 * 3600).default(7 * 24 * 3600),
  OPENPAW_RESEARCH_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  OPENPAW_RESEARCH_WEBHOOK_BACKOFF_MS: z
    .string()
    .default('5000,30000,120000,600000')
    .transform((raw) => raw.split(',').map((part) => Number(part.trim())))
    .pipe(z.array(z.int().nonnegative()).min(1, 'at least one delay')),
  OPENPAW_RESEARCH_WEBHOOK_ATTEMPTS: z.coerce.number().int().positive().max(50).default(8),
  OPENPAW_RESEARCH_WEBHOOK_CONCURRENCY: z.coerce.number().int().positive().max(256).default(8),
});

/** Reads the settings (the research service's `researchSettingsFromEnv` calls it); throws naming every invalid variable. */
export function researchFlowSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): ResearchFlowSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) throw new Error(`invalid research flow configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const e = parsed.data;
  return {
    models: { openai: e.OPENPAW_RESEARCH_MODELS.openai ?? DEFAULT_MODELS.openai, anthropic: e.OPENPAW_RESEARCH_MODELS.anthropic ?? DEFAULT_MODELS.anthropic, gemini: e.OPENPAW_RESEARCH_MODELS.gemini ?? DEFAULT_MODELS.gemini },
    legMaxTokens: e.OPENPAW_RESEARCH_LEG_MAX_TOKENS,
    synthesisMaxTokens: e.OPENPAW_RESEARCH_SYNTHESIS_MAX_TOKENS,
    titleTimeoutMs: e.OPENPAW_RESEARCH_TITLE_TIMEOUT_MS,
    shareTtlSeconds: e.OPENPAW_RESEARCH_SHARE_TTL_SECONDS,
    webhook: {
      timeoutMs: e.OPENPAW_RESEARCH_WEBHOOK_TIMEOUT_MS,
      backoffMs: e.OPENPAW_RESEARCH_WEBHOOK_BACKOFF_MS,
      attempts: e.OPENPAW_RESEARCH_WEBHOOK_ATTEMPTS,
      concurrency: e.OPENPAW_RESEARCH_WEBHOOK_CONCURRENCY,
      // No variable turns the SSRF guard off; tests that deliver to 127.0.0.1 start `testing/private-webhooks-main.ts`.
      allowPrivateAddresses: false,
    },
  };
}
