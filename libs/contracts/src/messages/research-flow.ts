import { z } from 'zod';
import { freeText } from '../free-text.js';
import { RESEARCH_LANE } from '../lanes.js';
import { defineBatchCommand } from '../batch-command.js';
import { defineCommand, defineEvent } from '../message-definition.js';
import { SUBSCRIPTION_TIERS } from './problem.js';

/**
 * Spec 05 (research flow): one research run fans a prompt out to several model providers ("legs"),
 * detects completion after every leg result, stops at a human gate on partial failure, and
 * synthesises the successful reports with source attribution. Commands go to the research service
 * (`openpaw.cmd.research.*`) on the `research` lane, so hour-long legs never queue ahead of the
 * service's critical-path commands (paper search); its answers and the lifecycle events other teams
 * subscribe to (`ResearchCompleted`, `ResearchFailed`) are `research` events. Replies carry the id
 * of the command they answer (`commandId`) and are published with `deterministicUuid(commandId, subject)`.
 */

/** FROZEN: the workflow type of research runs (changing it orphans existing runs). */
export const RESEARCH_WORKFLOW = 'research';

/** Providers a leg (or the synthesis) can run on; `local` is the offline extractive researcher. */
export const researchProvider = z.enum(['openai', 'anthropic', 'gemini', 'local']);
export type ResearchProvider = z.infer<typeof researchProvider>;
/** The providers that need the user's own API key (`local` needs none). */
export const KEYED_RESEARCH_PROVIDERS = ['openai', 'anthropic', 'gemini'] as const satisfies readonly ResearchProvider[];
export type KeyedResearchProvider = (typeof KEYED_RESEARCH_PROVIDERS)[number];

/** Limits of the user's input (spec 05 "Bad input": an oversized external report is refused, naming it). */
export const RESEARCH_LIMITS = {
  promptChars: 20_000,
  titleChars: 200,
  externalReports: 5,
  externalReportChars: 50_000,
  /** A leg's report and the synthesis are cut to this many characters (the view travels in every RunStateChanged). */
  reportChars: 60_000,
  /** The spec's "max 2 retries" of failed legs. */
  maxRetries: 2,
  /** The spec's hard cap of one leg (60 min), from its pickup: the coordinator's default, and what a rollout lets a running leg finish in. */
  legCapMs: 60 * 60 * 1000,
  /** The synthesis call's default cap, from its pickup. */
  synthesisCapMs: 15 * 60 * 1000,
} as const;

/** A research prompt, as the gateway takes it and the research service receives it. */
export const researchPrompt = freeText().trim().min(1, 'the prompt must not be empty').max(RESEARCH_LIMITS.promptChars);
const prompt = researchPrompt;
/** A research's own title. */
export const researchTitle = freeText().trim().min(1).max(RESEARCH_LIMITS.titleChars);

export const externalReport = z.strictObject({
  title: researchTitle.optional(),
  content: freeText()
    .trim()
    .min(1)
    .max(RESEARCH_LIMITS.externalReportChars, `an external report is at most ${RESEARCH_LIMITS.externalReportChars} characters`),
});
export type ExternalReport = z.infer<typeof externalReport>;

const providers = z
  .array(researchProvider)
  .min(1, 'select at least one LLM')
  .max(researchProvider.options.length)
  .refine((list) => new Set(list).size === list.length, 'each LLM at most once');

/**
 * A per-user provider key as it travels: the `UserKeyVault` ciphertext (`v1:<nonce>:<tag>:<data>`,
 * AES-256-GCM bound to the user and provider; the nonce is the IV, or an ephemeral X25519 public key
 * and the IV when sealed to the research service's key pair), never the key itself. Only the research
 * service opens it.
 */
export const sealedKey = z.string().regex(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/, 'a sealed key (v1:iv:tag:data)');
export const sealedKeys = z.strictObject({ openai: sealedKey.optional(), anthropic: sealedKey.optional(), gemini: sealedKey.optional() });
export type SealedKeys = z.infer<typeof sealedKeys>;

/** `StartRun.input` of a `research` run: a draft (spec Phase 1), started at once when `start` is set. */
export const researchDraftInput = z.strictObject({
  /** The user's own title; when absent the research service generates one (model, else the deterministic fallback). */
  title: researchTitle.nullable(),
  prompt,
  selectedLlms: providers,
  synthesisLlm: researchProvider,
  externalReports: z.array(externalReport).max(RESEARCH_LIMITS.externalReports),
  /** Sealed keys of the selected and synthesis providers (and gemini's, for the title). */
  keys: sealedKeys,
  /** Start right away (POST /research without a draft): draft → processing in the same input. */
  start: z.boolean(),
  /** The caller's tier: the run's policy (cost cap) is resolved with it. */
  subscriptionTier: z.enum(SUBSCRIPTION_TIERS),
});
export type ResearchDraftInput = z.infer<typeof researchDraftInput>;

/**
 * Whether a synthesis can come of a request: spec 05's skip rule runs it only with >= 2 successful
 * legs or any external report, so one selected leg without an external report never needs it.
 */
export function synthesisCanRun(request: { readonly selectedLlms: readonly ResearchProvider[]; readonly externalReports: readonly unknown[] }): boolean {
  return request.selectedLlms.length >= 2 || request.externalReports.length > 0;
}

/**
 * The providers a request needs the user's key for to start: the selected legs, and the synthesis
 * provider only when a synthesis can come of it (`synthesisCanRun`). `local` needs none.
 */
export function providersNeedingKeys(request: { readonly selectedLlms: readonly ResearchProvider[]; readonly synthesisLlm: ResearchProvider; readonly externalReports: readonly unknown[] }): KeyedResearchProvider[] {
  const needed = new Set<ResearchProvider>([...request.selectedLlms, ...(synthesisCanRun(request) ? [request.synthesisLlm] : [])]);
  return KEYED_RESEARCH_PROVIDERS.filter((p) => needed.has(p));
}

/** Human input `start_research` (POST /research on a draft): what the user may still change, and the keys. */
export const startResearchPayload = z.strictObject({
  prompt: prompt.optional(),
  title: researchTitle.optional(),
  selectedLlms: providers.optional(),
  synthesisLlm: researchProvider.optional(),
  externalReports: z.array(externalReport).max(RESEARCH_LIMITS.externalReports).optional(),
  keys: sealedKeys,
});
export type StartResearchPayload = z.infer<typeof startResearchPayload>;

/** Human input `retry` (confirm `retry`, or POST /research/:id/retry): fresh keys, the user may have updated them. */
export const retryResearchPayload = z.strictObject({ keys: sealedKeys });

/** The human inputs of a research run (`SubmitRunInput.inputType`). */
export const RESEARCH_INPUTS = { start: 'start_research', proceed: 'proceed', retry: 'retry', cancel: 'cancel' } as const;

// ---- the legs ----

const legFields = {
  runId: z.uuid(),
  commandId: z.string(),
  /** Position of the leg in `selectedLlms`. */
  legIndex: z.int().nonnegative(),
  provider: researchProvider,
  /** 1 for the first call, +1 for every retry round that re-ran this leg. */
  round: z.int().positive(),
};

export const ExecuteResearchLeg = defineCommand(
  'research',
  'ExecuteResearchLeg',
  1,
  z.object({
    runId: z.uuid(),
    userId: z.string().min(1),
    legIndex: z.int().nonnegative(),
    provider: researchProvider,
    round: z.int().positive(),
    prompt,
    externalReports: z.array(externalReport).max(RESEARCH_LIMITS.externalReports),
    /** The user's sealed key for `provider`; null for `local`. */
    key: sealedKey.nullable(),
    /** Hard cap of the whole leg (retries included), from its pickup. */
    capMs: z.int().positive(),
    /** What the leg may spend (its share of the run's cost cap). */
    costCapUsd: z.number().nonnegative(),
  }),
  "Run one provider's research call (spec's `llm.call`); answers ResearchLegStarted, then ResearchLegCompleted or ResearchLegFailed. Idempotent per command id: a redelivery never calls the provider again once answered.",
  { lane: RESEARCH_LANE },
);

/**
 * The legs of one round as one command (ADR 0025): the prompt and reports once, one item per leg.
 * Each item is answered exactly as the one-item ExecuteResearchLeg whose id is its `itemId` would be
 * (ResearchLegStarted, then ResearchLegCompleted or ResearchLegFailed, `commandId` = `itemId`), and
 * de-duplicated by it: a re-send of one leg is a one-item batch with the original `itemId`.
 */
export const ExecuteResearchLegs = defineBatchCommand(
  'research',
  'ExecuteResearchLegs',
  1,
  {
    shared: {
      runId: z.uuid(),
      userId: z.string().min(1),
      prompt,
      externalReports: z.array(externalReport).max(RESEARCH_LIMITS.externalReports),
      /** Hard cap of each leg (retries included), from its pickup. */
      capMs: z.int().positive(),
    },
    item: {
      legIndex: z.int().nonnegative(),
      provider: researchProvider,
      round: z.int().positive(),
      /** The user's sealed key for `provider`; null for `local`. */
      key: sealedKey.nullable(),
      /** What the leg may spend (its share of the run's cost cap). */
      costCapUsd: z.number().nonnegative(),
    },
    maxItems: researchProvider.options.length,
  },
  "Run several providers' research calls of one round (the spec's `llm.call` per leg), each item on its own: answers per item, as ExecuteResearchLeg does with the item's `itemId` as its command id. One invalid item is dead-lettered alone.",
  { lane: RESEARCH_LANE },
);

export const ResearchLegStarted = defineEvent(
  'research',
  'ResearchLegStarted',
  1,
  z.object({ ...legFields, startedAt: z.iso.datetime({ offset: true }) }),
  'A leg was picked up and its provider is being called (per-leg state `processing`).',
);

export const legUsage = z.object({ inputTokens: z.int().nonnegative(), outputTokens: z.int().nonnegative() });

export const ResearchLegCompleted = defineEvent(
  'research',
  'ResearchLegCompleted',
  1,
  z.object({
    ...legFields,
    /** `provider/model` that answered. */
    model: z.string(),
    /** The report (markdown), at most RESEARCH_LIMITS.reportChars. */
    content: z.string().max(RESEARCH_LIMITS.reportChars),
    /** True when the report is not whole: the model stopped at its output limit, or it was cut to `reportChars`. */
    truncated: z.boolean(),
    /** True when the offline extractive researcher wrote it (no model was called). */
    local: z.boolean(),
    usage: legUsage,
    costUsd: z.number().nonnegative(),
    latencyMs: z.int().nonnegative(),
  }),
  'A leg produced its report.',
);

export const legFailureReason = z.enum(['rate_limited', 'server_error', 'timeout', 'auth', 'no_key', 'bad_request', 'cost_cap', 'cancelled', 'unavailable']);
export type LegFailureReason = z.infer<typeof legFailureReason>;

export const ResearchLegFailed = defineEvent(
  'research',
  'ResearchLegFailed',
  1,
  z.object({ ...legFields, reason: legFailureReason, detail: z.string().max(2_000), costUsd: z.number().nonnegative() }),
  "A leg failed after the provider wrapper's own retries (or its cap, or a cancel).",
);

// ---- synthesis and share ----

export const legReport = z.object({
  provider: researchProvider,
  model: z.string(),
  content: z.string().max(RESEARCH_LIMITS.reportChars),
  /** True when the leg's report was cut (the model's output limit or `reportChars`): the synthesis and the share page say so. Absent from older commands. */
  truncated: z.boolean().optional(),
});
export type LegReport = z.infer<typeof legReport>;

export const SynthesizeResearch = defineCommand(
  'research',
  'SynthesizeResearch',
  1,
  z.object({
    runId: z.uuid(),
    userId: z.string().min(1),
    /** 1, +1 for every re-run (retry from a synthesis failure). */
    round: z.int().positive(),
    title: z.string(),
    prompt,
    /** The successful legs' reports, in leg order. */
    reports: z.array(legReport).max(researchProvider.options.length),
    externalReports: z.array(externalReport).max(RESEARCH_LIMITS.externalReports),
    /** Spec's skip rule (≤ 1 successful result and no external report): share the report, call no model. */
    skipSynthesis: z.boolean(),
    synthesisLlm: researchProvider,
    key: sealedKey.nullable(),
    capMs: z.int().positive(),
    costCapUsd: z.number().nonnegative(),
  }),
  'Synthesise the successful reports with source attribution (or skip), then publish the shareable HTML; answers ResearchSynthesized or ResearchSynthesisFailed.',
  { lane: RESEARCH_LANE },
);

/** Which source a part of the synthesis draws on: a provider's report or an external report (1-based). */
export const attribution = z.object({
  source: z.string(),
  label: z.string(),
  /** Sentences of the synthesis that cite the source. */
  sentences: z.int().nonnegative(),
});

export const shareInfo = z.object({
  /** Signed, expiring URL of the self-contained HTML page. */
  url: z.string(),
  expiresAt: z.iso.datetime({ offset: true }),
  blobKey: z.string(),
  contentSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ShareInfo = z.infer<typeof shareInfo>;

export const ResearchSynthesized = defineEvent(
  'research',
  'ResearchSynthesized',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    round: z.int().positive(),
    /** Null when synthesis was skipped. */
    synthesis: z
      .object({
        content: z.string().max(RESEARCH_LIMITS.reportChars),
        model: z.string(),
        local: z.boolean(),
        attributions: z.array(attribution),
        costUsd: z.number().nonnegative(),
        /** True when the synthesis is not whole (the model's output limit, or `reportChars`). Absent from older replies. */
        truncated: z.boolean().optional(),
      })
      .nullable(),
    /** Null when no share storage is configured or the upload failed (the research still completes). */
    share: shareInfo.nullable(),
    shareError: z.string().nullable(),
  }),
  'The synthesis is written (or skipped) and the report is shared.',
);

export const ResearchSynthesisFailed = defineEvent(
  'research',
  'ResearchSynthesisFailed',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), round: z.int().positive(), reason: legFailureReason, detail: z.string().max(2_000), costUsd: z.number().nonnegative() }),
  'The synthesis model call failed.',
);

// ---- the draft's title ----

export const GenerateResearchTitle = defineCommand(
  'research',
  'GenerateResearchTitle',
  1,
  z.object({ runId: z.uuid(), userId: z.string().min(1), prompt, key: sealedKey.nullable() }),
  "Title a draft from its prompt with a model (Gemini, with the user's key), else the deterministic fallback; answers ResearchTitleGenerated.",
);

export const ResearchTitleGenerated = defineEvent(
  'research',
  'ResearchTitleGenerated',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), title: z.string().min(1).max(RESEARCH_LIMITS.titleChars), source: z.enum(['model', 'fallback']), model: z.string().nullable() }),
  "A draft's title.",
);

// ---- lifecycle events for other teams (spec's `research-events`) ----

export const ResearchCompleted = defineEvent(
  'research',
  'ResearchCompleted',
  1,
  z.object({
    researchId: z.uuid(),
    userId: z.string(),
    title: z.string(),
    prompt: z.string(),
    /** Providers whose report made it into the result. */
    providers: z.array(researchProvider),
    failedProviders: z.array(researchProvider),
    synthesized: z.boolean(),
    shareUrl: z.string().nullable(),
    shareExpiresAt: z.iso.datetime({ offset: true }).nullable(),
    costUsd: z.number().nonnegative(),
    completedAt: z.iso.datetime({ offset: true }),
  }),
  'A research run completed (with or without synthesis); carries the share URL when one was made. For notifications and other teams.',
);

export const researchErrorKind = z.enum(['all_failed', 'synthesis_failed', 'no_results', 'max_retries', 'cancelled', 'deadline']);
export type ResearchErrorKind = z.infer<typeof researchErrorKind>;

/**
 * The provider failure behind a run's error, when one reason explains it (the legs' reasons reused):
 * `auth` when a provider rejected the user's key (the user updates the key, then retries), `no_key`
 * when the synthesis had no key. Optional: runs and events from before it have none.
 */
const researchErrorReason = legFailureReason.nullable().optional();

export const ResearchFailed = defineEvent(
  'research',
  'ResearchFailed',
  1,
  z.object({
    researchId: z.uuid(),
    userId: z.string(),
    title: z.string(),
    errorKind: researchErrorKind,
    errorReason: researchErrorReason,
    error: z.string(),
    failedProviders: z.array(researchProvider),
    /** Retries used so far; the run can be retried from `failed` while this is below 2 (and it was not cancelled). */
    retryCount: z.int().nonnegative(),
    /** Legs of rounds up to this one and syntheses up to `synthesisRound` are over: the research service aborts any still running. */
    legRound: z.int().nonnegative(),
    synthesisRound: z.int().nonnegative(),
    failedAt: z.iso.datetime({ offset: true }),
  }),
  'A research run failed (all legs failed, synthesis failed, max retries, cancelled, deadline). The research service stops its in-flight legs on it.',
);

// ---- the run as the gateway sees it ----

export const researchStatus = z.enum(['draft', 'processing', 'retrying', 'synthesizing', 'awaiting_confirmation', 'completed', 'failed']);
export type ResearchStatus = z.infer<typeof researchStatus>;

export const legStatus = z.enum(['pending', 'processing', 'completed', 'failed']);
export type LegStatus = z.infer<typeof legStatus>;

export const llmResultView = z.object({
  provider: researchProvider,
  status: legStatus,
  model: z.string().nullable(),
  result: z.string().nullable(),
  truncated: z.boolean(),
  local: z.boolean(),
  error: z.string().nullable(),
  errorReason: legFailureReason.nullable(),
  round: z.int().nonnegative(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  durationMs: z.int().nonnegative().nullable(),
  costUsd: z.number().nonnegative(),
});
export type LlmResultView = z.infer<typeof llmResultView>;

/** The public view of a `research` run (published with every change; GET /research/:id reads it). */
export const researchView = z.object({
  id: z.uuid(),
  status: researchStatus,
  title: z.string(),
  titleSource: z.enum(['user', 'model', 'fallback']),
  prompt: z.string(),
  selectedLlms: z.array(researchProvider),
  synthesisLlm: researchProvider,
  /** Titles and sizes; the contents stay with the run. */
  externalReports: z.array(z.object({ title: z.string().nullable(), characters: z.int().nonnegative() })),
  llmResults: z.array(llmResultView),
  synthesizedResult: z.string().nullable(),
  synthesisModel: z.string().nullable(),
  /** True when the synthesis shown is not whole (the model stopped at its output limit, or it was cut to fit). */
  synthesisTruncated: z.boolean().optional(),
  synthesisAttributions: z.array(attribution),
  synthesisSkipped: z.boolean(),
  synthesisError: z.string().nullable(),
  partialFailure: z.object({ failedProviders: z.array(researchProvider), detectedAt: z.string(), retryCount: z.int().nonnegative() }).nullable(),
  retryCount: z.int().nonnegative(),
  shareInfo: shareInfo.nullable(),
  error: z.string().nullable(),
  errorKind: researchErrorKind.nullable(),
  errorReason: researchErrorReason,
  costUsd: z.number().nonnegative(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});
export type ResearchView = z.infer<typeof researchView>;

/**
 * The deterministic fallback title of a research (no model): the prompt's first sentence, cut at a
 * word boundary to 80 characters, with an ellipsis when cut. The coordinator shows it while the
 * model's title is pending; the research service answers with it when no model is available.
 */
export function fallbackResearchTitle(prompt: string): string {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.?!])(\s|$)/.exec(flat)?.[1] ?? flat;
  const bare = sentence.replace(/[.?!]+$/, '').trim();
  if (bare.length <= 80) return bare === '' ? 'Untitled research' : bare.charAt(0).toUpperCase() + bare.slice(1);
  const cut = bare.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  const words = (space > 40 ? cut.slice(0, space) : cut).replace(/[\s,;:–-]+$/, '');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}…`;
}
