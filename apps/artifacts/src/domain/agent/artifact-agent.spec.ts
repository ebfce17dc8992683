import type { SnapshotChunk } from '@openpaw/contracts';
import { createLlmFromEnv } from '@openpaw/providers';
import { validateArtifact } from '../validation/validators.js';
import { ArtifactAgent } from './artifact-agent.js';
import { citeChunks } from './citations.js';

const chunks: SnapshotChunk[] = [
  {
    chunk_id: 'chk_1',
    source_id: 'src-a',
    text: 'Photosynthesis converts light energy into chemical energy stored in glucose. Chloroplasts are the organelles where photosynthesis happens in plant cells. Chlorophyll is the green pigment that absorbs red and blue light.',
  },
  {
    chunk_id: 'chk_2',
    source_id: 'src-a',
    text: 'The light-dependent reactions take place in the thylakoid membranes and release oxygen. The Calvin cycle uses carbon dioxide to build sugars in the stroma. Stomata are pores in leaves that let carbon dioxide enter.',
  },
  {
    chunk_id: 'chk_3',
    source_id: 'src-b',
    text: 'ATP synthase produces adenosine triphosphate using a proton gradient across the membrane. Water molecules are split during photolysis to supply electrons.',
  },
];

describe('ArtifactAgent with the local deterministic model', () => {
  const agent = new ArtifactAgent(createLlmFromEnv({}), { maxTokens: 3000 }, () => new Date('2026-02-08T10:30:05Z'));

  it('plans from the snapshot chunks: a title and concepts', async () => {
    const plan = await agent.plan('quiz', 'Create a quiz on photosynthesis', { num_questions: 5 }, chunks);
    expect(plan).toEqual({ title: expect.any(String), concepts: expect.any(Array), created_at: '2026-02-08T10:30:05.000Z', model: 'local/deterministic' });
    expect(plan.concepts.length).toBeGreaterThanOrEqual(1);
    expect(plan.concepts).toContain('photosynthesis');
  });

  it.each([
    ['quiz', { num_questions: 5, difficulty: 'medium' as const }, 5],
    ['flashcards', { num_cards: 4 }, 4],
    ['summary', { num_points: 3 }, 3],
  ] as const)('generates a %s from the plan that passes its validator, every item citing snapshot chunks', async (type, options, count) => {
    const plan = await agent.plan(type, `Create ${type} on photosynthesis`, options, chunks);
    const generated = await agent.generateFromPlan(type, `Create ${type} on photosynthesis`, options, plan, chunks, { generation: 1, previousError: null });
    expect(generated.itemCount).toBe(count);
    expect(validateArtifact(type, generated.result, options, chunks.map((c) => c.chunk_id))).toEqual({ valid: true, errors: [] });
    if ('questions' in generated.result) {
      const first = generated.result.questions[0]!;
      expect(first.options).toHaveLength(4);
      expect(first.options).toContain(first.correct_answer);
      expect(first.chunk_ids).toEqual(['chk_1']);
    }
  });
});

describe('the local quiz asks about content terms (issue 26)', () => {
  const agent = new ArtifactAgent(createLlmFromEnv({}), { maxTokens: 3000 }, () => new Date('2026-02-08T10:30:05Z'));
  // The note of the report: the old frequency ranking blanked "takes" and "place", with "green" and "energy" as distractors.
  const note: SnapshotChunk[] = [
    {
      chunk_id: 'note',
      source_id: 'note',
      text:
        'Photosynthesis converts light energy into chemical energy. It takes place in the chloroplasts of green plant cells. ' +
        'The light-dependent reactions happen in the thylakoid membranes, where chlorophyll absorbs light. ' +
        'These reactions produce ATP and NADPH. The Calvin cycle takes place in the stroma and fixes carbon dioxide into glucose.',
    },
  ];
  const GOLD = new Set(['photosynthesis', 'light energy', 'chemical energy', 'chloroplasts', 'green plant cells', 'dependent reactions', 'reactions', 'thylakoid', 'thylakoid membranes', 'chlorophyll', 'light', 'atp', 'nadph', 'calvin', 'stroma', 'carbon dioxide', 'glucose']);

  it('blanks and offers only content terms of the note, never "takes", "place" or "green"', async () => {
    const options = { num_questions: 5, difficulty: 'medium' as const };
    const plan = await agent.plan('quiz', 'Create a quiz on this note', options, note);
    const generated = await agent.generateFromPlan('quiz', 'Create a quiz on this note', options, plan, note, { generation: 1, previousError: null });
    if (!('questions' in generated.result)) throw new Error('a quiz has questions');
    const answers = generated.result.questions.map((question) => question.correct_answer.toLowerCase());
    expect(answers.filter((answer) => !GOLD.has(answer))).toEqual([]);
    const offered = generated.result.questions.flatMap((question) => question.options.map((option) => option.toLowerCase()));
    expect(offered.filter((option) => ['takes', 'place', 'green', 'energy', 'it'].includes(option))).toEqual([]);
  });
});

describe('citations', () => {
  it('cite the chunk that holds the evidence quote, verbatim or by most of its words', () => {
    expect(citeChunks('Chloroplasts are the organelles where photosynthesis happens in plant cells.', '', chunks)).toEqual(['chk_1']);
    expect(citeChunks('the calvin cycle uses CO2 and carbon dioxide to build sugars in the stroma', '', chunks)).toEqual(['chk_2']);
    expect(citeChunks('Mitochondria are the powerhouse of the cell.', 'Nothing here either.', chunks)).toEqual([]);
    expect(citeChunks('', 'ATP synthase produces adenosine triphosphate', chunks)).toEqual(['chk_3']);
  });
});

describe('a job without sources', () => {
  it('generates from the request alone, every item citing the request', async () => {
    const agent = new ArtifactAgent(createLlmFromEnv({}), { maxTokens: 3000 });
    const request: SnapshotChunk[] = [
      {
        chunk_id: 'request',
        source_id: 'request',
        text: 'Create a quiz from these facts. Photosynthesis converts light energy into chemical energy stored in glucose. Chloroplasts are the organelles where photosynthesis happens in plant cells.',
      },
    ];
    const plan = await agent.plan('quiz', request[0]!.text, { num_questions: 2 }, request);
    const generated = await agent.generateFromPlan('quiz', request[0]!.text, { num_questions: 2 }, plan, request, { generation: 1, previousError: null });
    expect(validateArtifact('quiz', generated.result, { num_questions: 2 }, ['request'])).toEqual({ valid: true, errors: [] });
  });
});
