import type { TranslationCheck } from '@openpaw/maths';
import { MATHS_ENGINE_ID, MATHS_ENGINE_VERSION, type MathsBudget, type MathsEngine } from '@openpaw/maths/bounded';
import type { ChatMessage, CostBudget, LlmClient } from '@openpaw/providers';
import { z } from 'zod';
import type { StoredAnswer } from '../ports.js';
import { clip, TRANSLATION_UNVERIFIED } from './maths-engine.js';

/** A model's reading of a problem's words as maths the engine reads ("Solve 2x + 5 = 17"), and what it cost. */
export interface MathsTranslation {
  readonly maths: string;
  readonly model: string;
  readonly costUsd: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The port: a model that translates a worded problem into maths (configured by `OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL`). */
export interface MathsTranslator {
  translate(problem: string, options: { readonly signal?: AbortSignal; readonly budget?: CostBudget; readonly concurrencyKey?: string }): Promise<MathsTranslation>;
}

export const TRANSLATION_PROMPT_VERSION = 'maths-translation/v1';

const translationSchema = z.object({
  maths: z.string().trim().min(1).max(300).describe('the problem as one instruction and its maths, e.g. "Solve 2x + 5 = 17" or "Evaluate 12 * 13"'),
});

const SYSTEM_PROMPT = [
  'Translate the maths problem the user gives into the maths it states, for a maths engine to solve.',
  'Answer with one instruction and its maths only, in plain ASCII: "Solve 2x + 5 = 17", "Evaluate 12 * 13", "Solve the system x + y = 10, x - y = 2".',
  'Keep every number and relation the problem states; do not solve it.',
].join('\n');

/** The translator over the provider port: any configured model, the local deterministic one included. */
export class LlmMathsTranslator implements MathsTranslator {
  constructor(
    private readonly llm: LlmClient,
    private readonly model: string,
  ) {}

  async translate(problem: string, options: { readonly signal?: AbortSignal; readonly budget?: CostBudget; readonly concurrencyKey?: string }): Promise<MathsTranslation> {
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: problem },
    ];
    const result = await this.llm.structured(messages, translationSchema, { model: this.model, fallbackModels: [], maxTokens: 200, temperature: 0, ...options });
    return { maths: result.value.maths, model: result.model, costUsd: result.costUsd, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens };
  }
}

/**
 * The engine's answer when a model translation is configured: the engine solves the problem as its
 * own reader reads it and the model's translation, and the translation must agree with the reader.
 * - They agree: the reader's solution, checked ("solved"), the agreement recorded.
 * - They do not, or the reader read nothing: the engine's solution (of the reader's maths where it has
 *   one, else of the translation) labelled "translation unverified", `not_checked`: never served or
 *   kept as checked.
 * - The engine solves neither: undefined, and the models answer as without a translation.
 */
export async function answerWithTranslation(problem: string, translation: MathsTranslation, budget: MathsBudget, engine: MathsEngine, startedAt: number): Promise<StoredAnswer | undefined> {
  const [reader, translated] = await Promise.all([engine.solve(problem, budget), engine.solve(translation.maths, budget)]);
  // The verdict reads the problem on this thread: the engine's reader (mathjs, ~50 MB) is loaded by the
  // first translated problem, not at the start of a service that may never be configured to translate.
  const { translationVerdict } = await import('@openpaw/maths');
  const check: TranslationCheck = translationVerdict(problem, translation.maths, reader, translated);
  const solution = reader.solved ? reader : check.verdict === 'unverified' ? check.translated : undefined;
  if (solution === undefined) return undefined;
  const detail = check.verdict === 'agrees' ? `checked: ${solution.verification}; the model's translation "${translation.maths}" (${translation.model}) agrees with the maths engine's reader` : `${TRANSLATION_UNVERIFIED}: ${check.detail}`;
  return {
    value: { can_solve: true, reason: null, steps: solution.steps.map((s) => ({ title: s.title, detail: s.detail })), final_answer: solution.finalAnswer },
    provenance: {
      model: MATHS_ENGINE_ID,
      promptVersion: `${MATHS_ENGINE_VERSION}+${TRANSLATION_PROMPT_VERSION}`,
      inputTokens: translation.inputTokens,
      outputTokens: translation.outputTokens,
      costUsd: translation.costUsd,
      latencyMs: Math.max(0, performance.now() - startedAt),
      mathsEngine: check.verdict === 'agrees' ? 'solved' : 'not_checked',
      mathsEngineVersion: MATHS_ENGINE_VERSION,
      mathsEngineCategory: solution.category,
      mathsEngineDetail: clip(detail),
    },
  };
}
