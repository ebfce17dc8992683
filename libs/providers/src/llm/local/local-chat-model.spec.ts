import { boundedMathsEngine } from '@openpaw/maths';
import { z } from 'zod';
import { StructuredOutputError } from '../errors.js';
import { ResilientLlmClient } from '../resilient-llm-client.js';
import { LocalChatModel } from './local-chat-model.js';

const llm = new ResilientLlmClient({ models: [new LocalChatModel()], defaultModel: 'local/deterministic' });
// The maths engine's worker threads, started by the solves below.
afterAll(() => boundedMathsEngine().close());

const Solution = z.object({
  steps: z.array(z.object({ title: z.string(), detail: z.string() })),
  final_answer: z.string().nullable(),
  can_solve: z.boolean(),
});

const CHUNKS = [
  'Use the following chunks to generate 3 multiple-choice questions.',
  '[1] Photosynthesis converts light energy into chemical energy stored in glucose.',
  '[2] Chlorophyll is the green pigment that absorbs light in the chloroplasts of plant cells.',
  '[3] The Calvin cycle uses carbon dioxide and chemical energy to build glucose molecules.',
  '[4] Stomata are small pores on leaves that let carbon dioxide enter the plant.',
].join('\n');

describe('LocalChatModel through the resilient client', () => {
  it('refuses a message with an image (it reads text only), never answering as if it had read it', async () => {
    const image = { mimeType: 'image/png' as const, data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) };
    await expect(llm.chat([{ role: 'user', content: 'Solve the problem in the photo.', images: [image] }], { maxTokens: 100 })).rejects.toThrow(/the local model reads no images/);
  });

  it('answers a solution schema with a real worked solution, named as local, at no cost', async () => {
    const result = await llm.structured(
      [
        { role: 'system', content: 'You are a maths tutor. Show your steps.' },
        { role: 'user', content: 'Solve 3(x - 2) = 12' },
      ],
      Solution,
      { maxTokens: 500 },
    );
    expect(result.model).toBe('local/deterministic');
    expect(result.costUsd).toBe(0);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.value.can_solve).toBe(true);
    expect(result.value.final_answer).toBe('x = 6');
    expect(result.value.steps.length).toBeGreaterThanOrEqual(4);
    // The solution opens with the problem as the engine read it, then writes the equation.
    expect(result.value.steps[0]).toEqual({ title: 'The problem as read', detail: 'solving 3(x - 2) = 12' });
    expect(result.value.steps[1]).toEqual({ title: 'Write the equation', detail: '\\(3 \\left( x-2\\right) = 12\\)' });
  });

  it('is deterministic', async () => {
    const messages = [{ role: 'user' as const, content: 'What is 12 * (3 + 4)?' }];
    const a = await llm.structured(messages, Solution, { maxTokens: 500 });
    const b = await llm.structured(messages, Solution, { maxTokens: 500 });
    expect(a.rawText).toBe(b.rawText);
    expect(a.value.final_answer).toBe('84');
  });

  it('says it cannot solve what it cannot, with the reason in the schema', async () => {
    const WithReason = Solution.extend({ reason: z.string().optional() });
    const result = await llm.structured([{ role: 'user', content: 'Prove that the square root of 2 is irrational.' }], WithReason, { maxTokens: 500 });
    expect(result.value).toMatchObject({ can_solve: false, final_answer: null, steps: [] });
    expect(result.value.reason).toMatch(/not one the maths engine recognises/);
  });

  it('fills a quiz schema from the supplied chunks', async () => {
    const Quiz = z.object({
      title: z.string(),
      questions: z
        .array(
          z.object({
            question: z.string(),
            options: z.array(z.string()).length(4),
            correct_answer: z.string(),
            explanation: z.string(),
          }),
        )
        .min(1),
    });
    const { value } = await llm.structured([{ role: 'user', content: CHUNKS }], Quiz, { maxTokens: 2000 });
    expect(value.questions).toHaveLength(3);
    const sentences = CHUNKS.split('\n').slice(1).map((line) => line.replace(/^\[\d\] /, ''));
    for (const q of value.questions) {
      expect(sentences).toContain(q.explanation);
      expect(q.options).toContain(q.correct_answer);
      expect(new Set(q.options).size).toBe(4);
      expect(q.explanation.toLowerCase()).toContain(q.correct_answer.toLowerCase());
      expect(q.question).toContain('_____');
      expect(q.question.toLowerCase()).not.toContain(q.correct_answer.toLowerCase());
    }
    expect(value.title.length).toBeGreaterThan(0);
  });

  it('keeps an answer index consistent with the options', async () => {
    const Cards = z.object({
      items: z.array(z.object({ prompt: z.string(), choices: z.array(z.string()).min(3).max(3), answer_index: z.number().int().min(0).max(2) })).max(2),
      tags: z.array(z.string()).max(3),
      difficulty: z.enum(['easy', 'medium', 'hard']),
    });
    const { value } = await llm.structured([{ role: 'user', content: CHUNKS }], Cards, { maxTokens: 2000 });
    expect(value.items).toHaveLength(2);
    expect(value.tags.length).toBeLessThanOrEqual(3);
    expect(value.difficulty).toBe('medium');
    for (const item of value.items) {
      const answer = item.choices[item.answer_index]!;
      expect(item.prompt.toLowerCase()).not.toContain(answer.toLowerCase());
    }
  });

  it('fails with a typed error when the schema asks for what it cannot produce', async () => {
    const Strict = z.object({ code: z.string().regex(/^[A-Z]{3}-\d{4}$/) });
    const failure = await llm.structured([{ role: 'user', content: CHUNKS }], Strict, { maxTokens: 100 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StructuredOutputError);
    expect((failure as StructuredOutputError).rawText).toContain('"code"');
  });

  it('chats with a worked solution, or an extract it labels as such', async () => {
    const maths = await llm.chat([{ role: 'user', content: 'What is 2x + 3 = 7?' }], { maxTokens: 200 });
    expect(maths.text).toContain('Final answer: x = 2');
    expect(maths.text).toContain('local/deterministic');
    const prose = await llm.chat([{ role: 'user', content: CHUNKS }], { maxTokens: 200 });
    expect(prose.text).toMatch(/not a language model; this reply is extracted from the input/);
    // The key points are sentences of the input, as they are.
    const keyPoints = /Key points: (.*)/.exec(prose.text)?.[1] ?? '';
    const sentences = keyPoints.split(/(?<=\.)\s+/).filter((sentence) => sentence !== '');
    expect(sentences.length).toBeGreaterThan(0);
    for (const sentence of sentences) expect(CHUNKS).toContain(sentence);
  });
});

describe('LocalChatModel: the maths engine loads only for maths', () => {
  /** The real engine, loaded through a counter. */
  const counted = (): { model: LocalChatModel; loads: () => number } => {
    let loads = 0;
    return {
      model: new LocalChatModel(() => {
        loads += 1;
        return import('./math-solver.js');
      }),
      loads: () => loads,
    };
  };
  const Quiz = z.object({ questions: z.array(z.object({ question: z.string(), options: z.array(z.string()).length(4), correct_answer: z.string() })).min(1) });

  // The engine is ~110 MB and seconds of synchronous loading: a quiz, a summary or a question in prose
  // loaded it anyway, stalling every other command of the artifacts service behind its first job.
  it('answers a quiz schema and a question in prose without it', async () => {
    const { model, loads } = counted();
    const client = new ResilientLlmClient({ models: [model], defaultModel: 'local/deterministic' });
    const { value } = await client.structured([{ role: 'system', content: 'Write a quiz with 4 options per question.' }, { role: 'user', content: CHUNKS }], Quiz, { maxTokens: 2000 });
    expect(value.questions.length).toBeGreaterThan(0);
    const prose = await client.chat([{ role: 'user', content: 'Where does the Calvin cycle take place? Chunk one: the Calvin cycle runs in the stroma.' }], { maxTokens: 200 });
    expect(prose.text).toContain('this reply is extracted from the input');
    expect(loads()).toBe(0);
  });

  it('loads it for a worked-solution schema and for a message that may hold maths, and answers them as before', async () => {
    const { model, loads } = counted();
    const client = new ResilientLlmClient({ models: [model], defaultModel: 'local/deterministic' });
    const solved = await client.structured([{ role: 'user', content: 'Solve 3(x - 2) = 12' }], Solution, { maxTokens: 500 });
    expect(solved.value).toMatchObject({ can_solve: true, final_answer: expect.stringContaining('6') });
    const worded = await client.chat([{ role: 'user', content: 'What is 7 times 6?' }], { maxTokens: 200 });
    expect(worded.text).toContain('Final answer: 42');
    // Digits in prose may be maths: the engine is asked, and finds none, so the reply is an extract.
    const numbered = await client.chat([{ role: 'user', content: CHUNKS }], { maxTokens: 200 });
    expect(numbered.text).toContain('this reply is extracted from the input');
    expect(loads()).toBe(3);
  });
});
