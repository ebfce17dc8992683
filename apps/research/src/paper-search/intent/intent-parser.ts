import type { ParsedIntent, SkillProvenance } from '@openpaw/contracts';

/** Skill 1: the user's request → ParsedIntent. */
export interface IntentParser {
  parse(query: string, options?: { readonly signal?: AbortSignal }): Promise<{ readonly intent: ParsedIntent; readonly provenance: SkillProvenance }>;
}
