import type { ArtifactOptions, ArtifactPlan, ArtifactResult, ArtifactType, SnapshotChunk } from '@openpaw/contracts';
import type { LlmClient } from '@openpaw/providers';
import type { z } from 'zod';
import { citeChunks } from './citations.js';
import { type GenerationFeedback, generationMessages, generationSchemas, planMessages, planSchema } from './prompts.js';

export interface AgentSettings {
  readonly maxTokens: number;
  readonly timeoutMs?: number;
}

export interface Generated {
  readonly result: ArtifactResult;
  readonly itemCount: number;
  readonly model: string;
}

type Drafts = { [K in ArtifactType]: z.output<(typeof generationSchemas)[K]> };

/**
 * The artifact agent (spec 02): `plan()` then `generateFromPlan()`, each one structured LLM call
 * validated with zod (the client re-asks once on a reply that does not validate). It sees only the
 * chunks it is given (the job's snapshot). Each generated item's `chunk_ids` are found from the
 * evidence quote the model gave (`citeChunks`), so citations point at real snapshot chunks.
 */
export class ArtifactAgent {
  constructor(
    private readonly llm: LlmClient,
    private readonly settings: AgentSettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async plan(type: ArtifactType, request: string, options: ArtifactOptions, chunks: readonly SnapshotChunk[]): Promise<ArtifactPlan> {
    const reply = await this.llm.structured(planMessages(type, request, options, chunks), planSchema, this.callOptions());
    const concepts = [...new Set(reply.value.concepts.map((c) => c.trim()).filter((c) => c !== ''))];
    return {
      title: reply.value.title.trim() || request,
      concepts: concepts.length > 0 ? concepts : [request],
      created_at: this.now().toISOString(),
      model: reply.model,
    };
  }

  async generateFromPlan(
    type: ArtifactType,
    request: string,
    options: ArtifactOptions,
    plan: ArtifactPlan,
    chunks: readonly SnapshotChunk[],
    feedback: GenerationFeedback,
  ): Promise<Generated> {
    const messages = generationMessages(type, request, options, plan, chunks, feedback);
    switch (type) {
      case 'quiz': {
        const reply = await this.llm.structured(messages, generationSchemas.quiz, this.callOptions());
        return { ...quizResult(reply.value, chunks), model: reply.model };
      }
      case 'flashcards': {
        const reply = await this.llm.structured(messages, generationSchemas.flashcards, this.callOptions());
        return { ...flashcardsResult(reply.value, chunks), model: reply.model };
      }
      case 'summary': {
        const reply = await this.llm.structured(messages, generationSchemas.summary, this.callOptions());
        return { ...summaryResult(reply.value, chunks), model: reply.model };
      }
    }
  }

  private callOptions(): { maxTokens: number; temperature: number; timeoutMs?: number } {
    return { maxTokens: this.settings.maxTokens, temperature: 0.2, ...(this.settings.timeoutMs === undefined ? {} : { timeoutMs: this.settings.timeoutMs }) };
  }
}

const trim = (s: string): string => s.trim();

function quizResult(draft: Drafts['quiz'], chunks: readonly SnapshotChunk[]): Omit<Generated, 'model'> {
  const questions = draft.questions.map((q) => ({
    question: trim(q.question),
    options: q.options.map(trim),
    correct_answer: trim(q.correct_answer),
    explanation: trim(q.explanation),
    chunk_ids: citeChunks(q.evidence, q.explanation, chunks),
  }));
  return { result: { questions }, itemCount: questions.length };
}

function flashcardsResult(draft: Drafts['flashcards'], chunks: readonly SnapshotChunk[]): Omit<Generated, 'model'> {
  const flashcards = draft.flashcards.map((card) => ({
    front: trim(card.front),
    back: trim(card.back),
    chunk_ids: citeChunks(card.evidence, card.back, chunks),
  }));
  return { result: { flashcards }, itemCount: flashcards.length };
}

function summaryResult(draft: Drafts['summary'], chunks: readonly SnapshotChunk[]): Omit<Generated, 'model'> {
  const keyPoints = draft.key_points.map((p) => ({ point: trim(p.point), chunk_ids: citeChunks(p.evidence, p.point, chunks) }));
  const cited = new Set(keyPoints.flatMap((p) => p.chunk_ids));
  for (const sentence of draft.summary.split(/(?<=[.!?])\s+/)) for (const id of citeChunks(sentence, '', chunks)) cited.add(id);
  const order = new Map(chunks.map((c, i) => [c.chunk_id, i]));
  return {
    result: {
      title: trim(draft.title),
      summary: trim(draft.summary),
      key_points: keyPoints,
      chunk_ids: [...cited].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)),
    },
    itemCount: keyPoints.length,
  };
}
