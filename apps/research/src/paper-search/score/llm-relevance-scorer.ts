import { PAPER_TAGS, type Paper, type ScoredPaper, type SkillProvenance } from '@openpaw/contracts';
import { z } from 'zod';
import { askStructured, combined, type LlmSkillContext } from '../skills/llm-call.js';
import { byRelevance, type RelevanceScorer, type ScoringInput } from './relevance-scorer.js';

export const SCORE_PROMPT_VERSION = 'paper-score/1';

/**
 * Skill 5 through the LLM port, in batches: every paper of a batch must come back exactly once
 * (the reply schema lists the batch's ids), with a score, a one-sentence rationale and tags.
 */
export class LlmRelevanceScorer implements RelevanceScorer {
  constructor(
    private readonly context: LlmSkillContext,
    private readonly batchSize: number,
  ) {}

  async score(input: ScoringInput, options: { readonly signal?: AbortSignal } = {}): Promise<{ papers: ScoredPaper[]; provenance: SkillProvenance }> {
    const scored: ScoredPaper[] = [];
    const provenances: SkillProvenance[] = [];
    for (let start = 0; start < input.papers.length; start += this.batchSize) {
      const batch = input.papers.slice(start, start + this.batchSize);
      const { value, provenance } = await askStructured(this.context, messages(input, batch), replySchema(batch), `LLM relevance scoring (${SCORE_PROMPT_VERSION})`, options.signal);
      provenances.push(provenance);
      const byId = new Map(value.scores.map((s) => [s.paper_id, s]));
      for (const paper of batch) {
        const s = byId.get(paper.id)!;
        scored.push({ ...paper, relevanceScore: s.relevance_score, relevanceReason: s.reason, tags: [...new Set(s.tags)] });
      }
    }
    const fallback: SkillProvenance = { model: this.context.llm.describe().defaultModel, local: false, method: `LLM relevance scoring (${SCORE_PROMPT_VERSION})`, costUsd: 0 };
    return { papers: scored.sort(byRelevance), provenance: combined(provenances, fallback) };
  }
}

function replySchema(batch: readonly Paper[]) {
  const ids = batch.map((p) => p.id) as [string, ...string[]];
  return z.object({
    scores: z
      .array(
        z.object({
          paper_id: z.enum(ids),
          relevance_score: z.number().min(0).max(1),
          reason: z.string().min(1).max(600),
          tags: z.array(z.enum(PAPER_TAGS)).max(PAPER_TAGS.length),
        }),
      )
      .length(batch.length)
      .refine((scores) => new Set(scores.map((s) => s.paper_id)).size === scores.length, { message: 'every paper_id exactly once' }),
  });
}

function messages(input: ScoringInput, batch: readonly Paper[]) {
  return [
    {
      role: 'system' as const,
      content:
        'You judge how relevant each paper is to a literature search. Score 0 (unrelated) to 1 (exactly what is wanted); ' +
        'give one sentence of reason that names what matches or is missing; tag each paper (method, review, empirical, theoretical, dataset). ' +
        'Papers about an excluded term score low. Return every paper_id exactly once.',
    },
    {
      role: 'user' as const,
      content: JSON.stringify({
        request: input.query,
        intent: input.intent,
        keywords: input.strategy.queries.flatMap((q) => q.keywords),
        excluded_terms: input.strategy.excludedTerms,
        papers: batch.map((p) => ({ paper_id: p.id, title: p.title, year: p.year, venue: p.venue, abstract: p.abstract?.slice(0, 1_200) ?? null })),
      }),
    },
  ];
}
