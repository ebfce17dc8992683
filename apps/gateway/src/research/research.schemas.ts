import { externalReport, KEYED_RESEARCH_PROVIDERS, RESEARCH_KEY_TEST_OUTCOMES, RESEARCH_LIMITS, researchPrompt, researchProvider, researchTitle, type PublicResearchView, publicResearchView } from '@openpaw/contracts';
import { z } from 'zod';

const prompt = researchPrompt;
const title = researchTitle;
const providers = z
  .array(researchProvider)
  .min(1, 'select at least one LLM')
  .refine((list) => new Set(list).size === list.length, 'each LLM at most once');
const externalReports = z.array(externalReport).max(RESEARCH_LIMITS.externalReports, `at most ${RESEARCH_LIMITS.externalReports} external reports`);

/** `POST /research/draft` (spec Phase 1): the form as the user left it. */
export const createDraftBody = z.strictObject({
  prompt,
  title: title.optional(),
  /** Default: every provider the user has a key for, and `local`. */
  selectedLlms: providers.optional(),
  /** Default: `gemini` when the user has a Gemini key, else `local`. */
  synthesisLlm: researchProvider.optional(),
  externalReports: externalReports.optional(),
});

/** `POST /research`: start a draft (`draftId`, optionally with last changes), or a new research at once. */
export const startResearchBody = z
  .strictObject({
    draftId: z.uuid().optional(),
    prompt: prompt.optional(),
    title: title.optional(),
    selectedLlms: providers.optional(),
    synthesisLlm: researchProvider.optional(),
    externalReports: externalReports.optional(),
  })
  .refine((b) => b.draftId !== undefined || b.prompt !== undefined, { path: ['prompt'], message: 'a prompt is required when no draftId is given' });

export const confirmBody = z.strictObject({ action: z.enum(['proceed', 'retry', 'cancel']) });

export const researchIdParams = z.object({ id: z.uuid() });
export const keyProviderParams = z.object({ provider: z.enum(KEYED_RESEARCH_PROVIDERS) });
export const putKeyBody = z.strictObject({
  // Sent in an HTTP header by the research service: printable ASCII, no spaces (NUL or other control text is refused here, by name).
  apiKey: z
    .string()
    .trim()
    .min(8, 'an API key is at least 8 characters')
    .max(500)
    .regex(/^[\x21-\x7e]+$/, 'an API key is printable ASCII without spaces'),
});
/** A key's latest test: `outcome` null while the research service has not reported it yet. */
export const keyTest = z.object({
  testId: z.uuid(),
  requestedAt: z.string(),
  testedAt: z.string().nullable(),
  outcome: z
    .enum(RESEARCH_KEY_TEST_OUTCOMES)
    .nullable()
    .describe(
      '`ok`: the provider answered. `auth`: it refused the key (or the stored key cannot be opened: enter it again). `quota`: 429, out of credit or rate-limited (the reason says which). ' +
        '`model_unknown`: it does not know the model research uses. `unreachable`: no answer. `provider_error`: another failure (5xx, 400). Null: not reported yet.',
    ),
  model: z.string().nullable().describe('The `provider/model` asked: the one research legs of this provider use.'),
  latencyMs: z.int().nullable(),
  reason: z.string().nullable().describe('The provider’s status and message when not `ok` (never the key).'),
});
export const keysList = z.object({ keys: z.array(z.object({ provider: z.enum(KEYED_RESEARCH_PROVIDERS), updatedAt: z.string(), lastTest: keyTest.nullable() })) });
/** Longest `?wait` (seconds) of `POST /research/keys/:provider/test`: one minimal provider call, without retry, is well within it. */
export const MAX_KEY_TEST_WAIT_SECONDS = 30;
/** `POST /research/keys/:provider/test?wait=` */
export const keyTestQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(MAX_KEY_TEST_WAIT_SECONDS)
    .optional()
    .describe(`Seconds (0..${MAX_KEY_TEST_WAIT_SECONDS}) to wait for the research service's report (default 0): 200 with the outcome once reported, 202 otherwise.`),
});
export const keyTestStarted = z.object({
  testId: z.uuid(),
  provider: z.enum(KEYED_RESEARCH_PROVIDERS),
  requestedAt: z.string(),
  lastTest: keyTest.describe('This test, as `GET /research/keys` lists it: with its outcome when answered 200, `outcome` null when 202.'),
});

/** Spec 05 "Status → UI Mapping". */
export const researchUi = z.object({
  card: z.enum(['edit_form', 'progress_per_llm', 'synthesizing', 'retrying', 'confirm_dialog', 'synthesis_and_reports', 'synthesis_not_available', 'error']),
  message: z.string(),
  /** What the card offers: `start`, `proceed`, `retry`, `cancel`, `create_new`. */
  actions: z.array(z.enum(['start', 'proceed', 'retry', 'cancel', 'create_new'])),
  showSynthesisNotAvailable: z.boolean(),
});
export type ResearchUi = z.infer<typeof researchUi>;

export const researchResponse = publicResearchView.extend({ ui: researchUi, createdAt: z.string(), updatedAt: z.string() });
export type ResearchResponse = z.infer<typeof researchResponse>;

export const missingKeysBody = z.object({ error: z.literal('missing_api_keys'), message: z.string(), providers: z.array(z.enum(KEYED_RESEARCH_PROVIDERS)) });
export const conflictBody = z.object({ error: z.literal('conflict'), message: z.string(), status: z.string(), reason: z.string().optional() });

/** Spec 05's "Synthesis Not Available Condition". */
export function showSynthesisNotAvailable(view: PublicResearchView): boolean {
  return view.status === 'completed' && view.synthesizedResult === null && view.llmResults.filter((r) => r.status === 'completed').length <= 1 && view.externalReports.length === 0;
}

/** Spec 05's status → UI mapping (and the error summary's user action). */
export function uiOf(view: PublicResearchView): ResearchUi {
  const notAvailable = showSynthesisNotAvailable(view);
  const ui = (card: ResearchUi['card'], message: string, actions: ResearchUi['actions'] = []): ResearchUi => ({ card, message, actions, showSynthesisNotAvailable: notAvailable });
  switch (view.status) {
    case 'draft':
      return ui('edit_form', 'Edit the research, then start it.', ['start']);
    case 'processing':
      return ui('progress_per_llm', view.llmResults.map((r) => `${r.provider}: ${r.status}`).join(', '), ['cancel']);
    case 'synthesizing':
      return ui('synthesizing', 'Synthesizing results...', ['cancel']);
    case 'retrying':
      return ui('retrying', 'Retrying failed providers...', ['cancel']);
    case 'awaiting_confirmation': {
      const rejected = view.llmResults.filter((r) => r.status === 'failed' && r.errorReason === 'auth').map((r) => r.provider);
      const keyHint = rejected.length === 0 ? '' : ` ${rejected.join(', ')} rejected the API key: update your key, then retry.`;
      return ui('confirm_dialog', `${(view.partialFailure?.failedProviders ?? []).join(', ')} failed.${keyHint} Proceed with the successful results, retry the failed providers, or cancel.`, [
        'proceed',
        'retry',
        'cancel',
      ]);
    }
    case 'completed':
      return view.synthesizedResult !== null ? ui('synthesis_and_reports', 'Synthesis and individual reports.') : ui('synthesis_not_available', 'Synthesis not available: showing the individual report.');
    case 'failed': {
      const final = view.errorKind === 'cancelled' || view.errorKind === 'max_retries' || (view.retryCount >= RESEARCH_LIMITS.maxRetries && view.llmResults.some((r) => r.status === 'failed'));
      return ui('error', view.error ?? 'The research failed.', final ? ['create_new'] : ['retry']);
    }
  }
}
