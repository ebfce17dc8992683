import type { ArtifactResult } from '@openpaw/contracts';
import { schemaErrorOf, validateArtifact } from './validators.js';

const snapshot = ['chk_1', 'chk_2'];

const question = (n: number, overrides: Record<string, unknown> = {}) => ({
  question: `Question ${n}?`,
  options: ['alpha', 'beta', 'gamma', 'delta'],
  correct_answer: 'beta',
  explanation: 'Because the source says so.',
  chunk_ids: ['chk_1'],
  ...overrides,
});

const quiz = (...questions: ReturnType<typeof question>[]): ArtifactResult => ({ questions });

describe('artifact validators', () => {
  it('accept a quiz of the spec shape with the requested count', () => {
    expect(validateArtifact('quiz', quiz(question(1), question(2)), { num_questions: 2 }, snapshot)).toEqual({ valid: true, errors: [] });
  });

  it.each([
    ['the wrong count', quiz(question(1)), 'expected 2 questions, got 1'],
    ['3 options', quiz(question(1, { options: ['alpha', 'beta', 'gamma'] }), question(2)), 'question 1: has 3 options, needs exactly 4'],
    ['duplicate options', quiz(question(1), question(2, { options: ['alpha', 'beta', 'Beta ', 'delta'] })), 'question 2: the options are not unique'],
    ['an answer not among the options', quiz(question(1, { correct_answer: 'epsilon' }), question(2)), 'question 1: correct_answer is not among the options'],
    ['no explanation', quiz(question(1, { explanation: ' ' }), question(2)), 'question 1: the explanation is empty'],
    ['no citation', quiz(question(1, { chunk_ids: [] }), question(2)), 'question 1: cites no chunk of the snapshot'],
    ['a chunk outside the snapshot', quiz(question(1), question(2, { chunk_ids: ['chk_9'] })), 'question 2: cites chunks outside the snapshot (chk_9)'],
    ['a repeated question', quiz(question(1), question(1)), 'question 2: repeats question 1'],
  ])('reject a quiz with %s', (_what, result, error) => {
    const report = validateArtifact('quiz', result, { num_questions: 2 }, snapshot);
    expect(report.valid).toBe(false);
    expect(report.errors).toContain(error);
  });

  it("reject a result of another type as missing 'questions'", () => {
    expect(validateArtifact('quiz', { flashcards: [] }, {}, snapshot).errors).toEqual(["Missing 'questions' field"]);
  });

  it('check flashcards: count, front and back, unique fronts, citations', () => {
    const card = (front: string, back: string, chunk_ids = ['chk_2']) => ({ front, back, chunk_ids });
    expect(validateArtifact('flashcards', { flashcards: [card('ATP', 'Energy currency'), card('Stroma', 'Fluid of the chloroplast')] }, { num_cards: 2 }, snapshot).valid).toBe(true);
    expect(validateArtifact('flashcards', { flashcards: [card('ATP', 'atp'), card('ATP', 'x', [])] }, { num_cards: 2 }, snapshot).errors).toEqual([
      'flashcard 1: the back repeats the front',
      'flashcard 2: repeats the front of flashcard 1',
      'flashcard 2: cites no chunk of the snapshot',
    ]);
  });

  it('check summaries: title, substance, key points within the requested number, citations', () => {
    const good = { title: 'T', summary: 'A summary that says enough.', key_points: [{ point: 'One', chunk_ids: ['chk_1'] }], chunk_ids: ['chk_1'] };
    expect(validateArtifact('summary', good, { num_points: 3 }, snapshot).valid).toBe(true);
    expect(validateArtifact('summary', { ...good, summary: 'short', chunk_ids: [] }, { num_points: 3 }, snapshot).errors).toEqual([
      'the summary is empty or too short',
      'the summary: cites no chunk of the snapshot',
    ]);
  });

  it.each([
    ['quiz', '{"items": []}', "Missing 'questions' field"],
    ['quiz', '{"questions": "none"}', "Missing 'questions' field"],
    ['flashcards', '[]', "Missing 'flashcards' field"],
    ['summary', '{"title": "T", "summary": "S"}', "Missing 'summary' or 'key_points' field"],
    ['quiz', 'Sorry, I cannot help with that.', 'the output is not a JSON object'],
  ] as const)('name the missing field of %s output that missed its schema (%s)', (type, raw, error) => {
    expect(schemaErrorOf(type, raw, ['questions[0].options: Required'])).toBe(error);
  });

  it('name the schema problems when the fields are there but their items are wrong', () => {
    expect(schemaErrorOf('quiz', '{"questions": [{"question": "Q?"}]}', ['questions.0.options: Invalid input'])).toBe(
      "the output did not match the quiz schema: questions.0.options: Invalid input",
    );
  });
});
