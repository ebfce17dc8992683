import type { SkillProvenance, Theme } from '@openpaw/contracts';
import { z } from 'zod';
import { askStructured, type LlmSkillContext } from '../skills/llm-call.js';
import type { Themer } from './themer.js';

export const THEMES_PROMPT_VERSION = 'paper-themes/1';

/** Themes through the LLM port: 1-8 named groups of the collection's papers, each with a summary. */
export class LlmThemer implements Themer {
  constructor(private readonly context: LlmSkillContext) {}

  async themes(input: Parameters<Themer['themes']>[0], options: { readonly signal?: AbortSignal } = {}): Promise<{ themes: Theme[]; provenance: SkillProvenance }> {
    if (input.papers.length === 0) return { themes: [], provenance: { model: this.context.llm.describe().defaultModel, local: false, method: 'no papers to group', costUsd: 0 } };
    const ids = input.papers.map((p) => p.id) as [string, ...string[]];
    const schema = z.object({
      themes: z
        .array(z.object({ name: z.string().min(1).max(120), summary: z.string().min(1).max(600), paper_ids: z.array(z.enum(ids)).min(1) }))
        .min(1)
        .max(8),
    });
    const { value, provenance } = await askStructured(
      this.context,
      [
        {
          role: 'system',
          content: 'Group the papers of a literature search into 1-8 themes (research directions, methods or questions). Name each theme briefly, summarise it in one or two sentences, and list its paper_ids.',
        },
        { role: 'user', content: JSON.stringify({ request: input.query, papers: input.papers.map((p) => ({ paper_id: p.id, title: p.title, year: p.year, abstract: p.abstract?.slice(0, 600) ?? null })) }) },
      ],
      schema,
      `LLM themes (${THEMES_PROMPT_VERSION})`,
      options.signal,
    );
    return { themes: value.themes.map((t) => ({ name: t.name, summary: t.summary, paperIds: [...new Set(t.paper_ids)] })), provenance };
  }
}
