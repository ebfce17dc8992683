import { z } from 'zod';
import type { TokenUsage } from './port.js';

/** USD per one million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * List prices in USD per million tokens for the models we expect to use (checked when this table
 * was written; providers change them, so deployments override with `OPENPAW_LLM_PRICES`). Keys are
 * `provider/model`; a reported snapshot such as `gpt-4o-mini-2024-07-18` is priced by the longest
 * key it starts with. `provider/*` prices a whole provider.
 */
export const defaultPriceTable: PriceTable = {
  'openai/gpt-4o-mini': { input: 0.15, output: 0.6 },
  'openai/gpt-4o': { input: 2.5, output: 10 },
  'openai/gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'openai/gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'openai/gpt-4.1': { input: 2, output: 8 },
  'openai/gpt-5-nano': { input: 0.05, output: 0.4 },
  'openai/gpt-5-mini': { input: 0.25, output: 2 },
  'openai/gpt-5': { input: 1.25, output: 10 },
  'openai/text-embedding-3-small': { input: 0.02, output: 0 },
  'openai/text-embedding-3-large': { input: 0.13, output: 0 },
  'anthropic/claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic/claude-sonnet-4-5': { input: 3, output: 15 },
  'anthropic/claude-sonnet-4': { input: 3, output: 15 },
  'anthropic/claude-opus-4-1': { input: 15, output: 75 },
  'gemini/gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
  'gemini/gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini/gemini-2.5-pro': { input: 1.25, output: 10 },
  'local/*': { input: 0, output: 0 },
};

/**
 * The price of a model missing from the table: deliberately the most expensive listed, so an
 * unknown model can never slip past a cost cap. Override per model in `OPENPAW_LLM_PRICES`
 * (e.g. a self-hosted vLLM model at 0).
 */
export const fallbackPrice: ModelPrice = { input: 15, output: 75 };

const priceOverrideSchema = z.record(z.string(), z.object({ input: z.number().min(0), output: z.number().min(0) }));

/** Parses `OPENPAW_LLM_PRICES` (JSON: `{"provider/model": {"input": 0.15, "output": 0.6}}`) over the defaults. */
export function priceTableFromJson(json: string | undefined, base: PriceTable = defaultPriceTable): PriceTable {
  if (json === undefined) return base;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`OPENPAW_LLM_PRICES is not JSON: ${(error as Error).message}`);
  }
  const result = priceOverrideSchema.safeParse(parsed);
  if (!result.success) throw new Error(`OPENPAW_LLM_PRICES is invalid: ${z.prettifyError(result.error)}`);
  return { ...base, ...result.data };
}

export interface PriceLookup {
  readonly price: ModelPrice;
  readonly source: 'table' | 'fallback';
}

/** Exact id, then the longest key the id starts with, then `provider/*`, then the fallback price. */
export function lookupPrice(table: PriceTable, id: string): PriceLookup {
  const exact = table[id];
  if (exact !== undefined) return { price: exact, source: 'table' };
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (!key.endsWith('/*') && id.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  const prefixed = best === undefined ? undefined : table[best];
  if (prefixed !== undefined) return { price: prefixed, source: 'table' };
  const slash = id.indexOf('/');
  const wildcard = slash > 0 ? table[`${id.slice(0, slash)}/*`] : undefined;
  if (wildcard !== undefined) return { price: wildcard, source: 'table' };
  return { price: fallbackPrice, source: 'fallback' };
}

export function costUsd(price: ModelPrice, usage: TokenUsage): number {
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/**
 * A deliberately high estimate of the input tokens of a prompt (one token per 3 characters; real
 * tokenizers average about 4 for English), so a reservation never undershoots by much.
 */
export function estimateInputTokens(texts: readonly string[]): number {
  let chars = 0;
  for (const text of texts) chars += text.length;
  return Math.ceil(chars / 3) + 8 * texts.length;
}
