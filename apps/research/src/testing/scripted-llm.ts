import { type ChatMessage, type ChatResult, type LlmClient, StructuredOutputError, type StructuredResult } from '@openpaw/providers';
import type { z } from 'zod';

/**
 * The LLM port for unit tests: each structured call takes the next scripted reply (a function of the
 * messages), validates it with the caller's schema as the real client does, and records the call.
 */
export function scriptedLlm(model = 'openai/gpt-4o-mini'): LlmClient & { readonly script: ((messages: readonly ChatMessage[]) => unknown)[]; readonly calls: (readonly ChatMessage[])[] } {
  const script: ((messages: readonly ChatMessage[]) => unknown)[] = [];
  const calls: (readonly ChatMessage[])[] = [];
  const usage = { inputTokens: 100, outputTokens: 50 };
  return {
    script,
    calls,
    describe: () => ({ defaultModel: model, fallbackModels: [], providers: [model.split('/')[0]!] }),
    chat: (): Promise<ChatResult> => Promise.reject(new Error('scriptedLlm answers structured calls only')),
    structured<S extends z.ZodType>(messages: readonly ChatMessage[], schema: S): Promise<StructuredResult<z.output<S>>> {
      calls.push(messages);
      const next = script.shift();
      if (next === undefined) return Promise.reject(new Error('no scripted LLM reply left'));
      const raw = next(messages);
      const parsed = schema.safeParse(raw);
      if (!parsed.success) return Promise.reject(new StructuredOutputError(JSON.stringify(raw), parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`), model, usage, 0.001, JSON.stringify(raw)));
      return Promise.resolve({ value: parsed.data, rawText: JSON.stringify(raw), calls: 1, model, requestedModel: model, usage, latencyMs: 5, costUsd: 0.001, pricing: 'table', attempts: [] });
    },
  };
}
