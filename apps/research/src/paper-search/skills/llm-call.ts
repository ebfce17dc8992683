import type { SkillProvenance } from '@openpaw/contracts';
import type { ChatMessage, LlmClient } from '@openpaw/providers';
import type { z } from 'zod';

/** What every LLM-backed skill needs. */
export interface LlmSkillContext {
  readonly llm: LlmClient;
  readonly maxTokens: number;
}

/** One structured call; the answer with how it was made. */
export async function askStructured<S extends z.ZodType>(
  context: LlmSkillContext,
  messages: readonly ChatMessage[],
  schema: S,
  method: string,
  signal?: AbortSignal,
): Promise<{ value: z.output<S>; provenance: SkillProvenance }> {
  const result = await context.llm.structured(messages, schema, { maxTokens: context.maxTokens, temperature: 0, ...(signal !== undefined ? { signal } : {}) });
  return { value: result.value, provenance: { model: result.model, local: result.model.startsWith('local/'), method, costUsd: result.costUsd } };
}

/** Provenance of a skill that made several calls: the models used, the summed cost. */
export function combined(parts: readonly SkillProvenance[], fallback: SkillProvenance): SkillProvenance {
  if (parts.length === 0) return fallback;
  return {
    model: [...new Set(parts.map((p) => p.model))].join(', '),
    local: parts.every((p) => p.local),
    method: parts[0]!.method,
    costUsd: parts.reduce((sum, p) => sum + p.costUsd, 0),
  };
}
