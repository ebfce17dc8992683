import { ARTIFACT_OPTION_DEFAULTS, type ArtifactOptions, type ArtifactPlan, type ArtifactType, type SnapshotChunk } from '@openpaw/contracts';
import type { ChatMessage } from '@openpaw/providers';
import { z } from 'zod';

/** Bumped whenever a prompt or schema below changes (kept with every plan and result). */
export const PROMPT_VERSION = 'artifacts-2026-01-v1';

/** How many items the request asks for. */
export function requestedItems(type: ArtifactType, options: ArtifactOptions): number {
  switch (type) {
    case 'quiz':
      return options.num_questions ?? ARTIFACT_OPTION_DEFAULTS.quiz.num_questions;
    case 'flashcards':
      return options.num_cards ?? ARTIFACT_OPTION_DEFAULTS.flashcards.num_cards;
    case 'summary':
      return options.num_points ?? ARTIFACT_OPTION_DEFAULTS.summary.num_points;
  }
}

/** "5 questions": the noun is the result's array field, so a model (the local one included) sizes it from the prompt. */
export function itemsPhrase(type: ArtifactType, count: number): string {
  switch (type) {
    case 'quiz':
      return `${count} questions`;
    case 'flashcards':
      return `${count} flashcards`;
    case 'summary':
      return `${count} key points`;
  }
}

/**
 * The sources as the model reads them: one numbered line per chunk ("Chunk 1: ..."). Instructions go
 * in system messages, so the user turn carries only the count line and the sources.
 */
function sourcesTurn(firstLine: string, chunks: readonly SnapshotChunk[]): ChatMessage {
  const body = chunks.map((chunk, i) => `Chunk ${i + 1}: ${chunk.text.replace(/\s*\n\s*/g, ' ')}`).join('\n');
  return { role: 'user', content: `${firstLine}\n\n${body}` };
}

export const planSchema = z.object({
  title: z.string().min(1).max(200).describe('A short title for the artifact.'),
  concepts: z.array(z.string().min(1).max(200)).min(1).max(20).describe('The key concepts the artifact will cover, most important first.'),
});

export function planMessages(type: ArtifactType, request: string, options: ArtifactOptions, chunks: readonly SnapshotChunk[]): ChatMessage[] {
  const count = requestedItems(type, options);
  return [
    {
      role: 'system',
      content:
        `You plan a study ${type} before it is written. The user's request: "${request}". ` +
        `Read the numbered source chunks and list the key concepts the ${type} should cover (one per item where possible, ${count} items), ` +
        'most important first, using only what the chunks say. Give the artifact a short title.',
    },
    sourcesTurn(`Create a plan for ${itemsPhrase(type, count)}.`, chunks),
  ];
}

const evidence = z.string().describe('An exact quote (one sentence) from the chunk this item is based on.');

export const generationSchemas = {
  quiz: z.object({
    questions: z
      .array(
        z.object({
          question: z.string().describe('The question.'),
          options: z.array(z.string()).describe('Exactly 4 distinct answer options.'),
          correct_answer: z.string().describe('The correct option, exactly as written in options.'),
          explanation: z.string().describe('Why the answer is correct, from the sources.'),
          evidence,
        }),
      )
      .describe('Exactly the requested number of questions.'),
  }),
  flashcards: z.object({
    flashcards: z
      .array(
        z.object({
          front: z.string().describe('The term or question on the front of the card.'),
          back: z.string().describe('The definition or answer on the back.'),
          evidence,
        }),
      )
      .describe('Exactly the requested number of flashcards.'),
  }),
  summary: z.object({
    title: z.string().describe('The title of the summary.'),
    summary: z.string().describe('A summary of the sources in a few sentences.'),
    key_points: z
      .array(z.object({ point: z.string().describe('One key point.'), evidence }))
      .describe('The requested number of key points.'),
  }),
} as const;

export interface GenerationFeedback {
  readonly generation: number;
  readonly previousError: string | null;
}

export function generationMessages(
  type: ArtifactType,
  request: string,
  options: ArtifactOptions,
  plan: ArtifactPlan,
  chunks: readonly SnapshotChunk[],
  feedback: GenerationFeedback,
): ChatMessage[] {
  const count = requestedItems(type, options);
  const rules: Record<ArtifactType, string> = {
    quiz: `Write ${count} multiple-choice questions${options.difficulty === undefined ? '' : ` of ${options.difficulty} difficulty`}: each with exactly 4 distinct options, the correct answer copied exactly from the options, and an explanation.`,
    flashcards: `Write ${count} flashcards: a term or question on the front, its definition or answer on the back.`,
    summary: `Write a title, a summary of a few sentences and ${count} key points.`,
  };
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        `You write a study ${type} from source chunks only. The user's request: "${request}". ${rules[type]} ` +
        `Follow this plan (title "${plan.title}"), covering these concepts in order: ${plan.concepts.join('; ')}. ` +
        'For every item quote, as its evidence, the exact sentence of the chunk it is based on. Use nothing but the chunks.',
    },
  ];
  if (feedback.generation > 1 && feedback.previousError !== null) {
    messages.push({ role: 'system', content: `A previous attempt was rejected by validation: ${feedback.previousError}. Avoid that mistake.` });
  }
  messages.push(sourcesTurn(`Create exactly ${itemsPhrase(type, count)}.`, chunks));
  return messages;
}

export function chatMessages(message: string, chunks: readonly SnapshotChunk[]): ChatMessage[] {
  if (chunks.length === 0) {
    return [
      { role: 'system', content: 'You answer questions about a notebook, but it has no sources yet: say so, and answer briefly only if you can without them.' },
      { role: 'user', content: message },
    ];
  }
  return [
    {
      role: 'system',
      content:
        'Answer the user from the numbered source chunks only, citing them as [1], [2], ... If the chunks do not answer the question, say so.',
    },
    { role: 'user', content: `${message}\n\n${chunks.map((chunk, i) => `Chunk ${i + 1}: ${chunk.text.replace(/\s*\n\s*/g, ' ')}`).join('\n')}` },
  ];
}
