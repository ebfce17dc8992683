import { EXIT, runCli } from '../cli.js';
import type { CliIo } from '../io.js';
import { renderArtifact } from './notebook.js';

describe('openpaw notebook', () => {
  it('prints a quiz with lettered options and the answer, flashcards front then back, a summary with its points', () => {
    const quiz = { questions: [{ question: 'Where does the Calvin cycle run?', options: ['stroma', 'thylakoid'], correct_answer: 'stroma', explanation: 'It builds sugars there.', chunk_ids: ['c1'] }] };
    expect(renderArtifact('quiz', quiz)).toEqual(['1. Where does the Calvin cycle run?', '   a) stroma', '   b) thylakoid', '   answer: stroma — It builds sugars there.', '']);
    expect(renderArtifact('flashcards', { flashcards: [{ front: 'Chlorophyll', back: 'the green pigment', chunk_ids: [] }] })).toEqual(['1. Chlorophyll', '   the green pigment', '']);
    expect(renderArtifact('summary', { title: 'Photosynthesis', summary: 'Light to sugar.', key_points: [{ point: 'Chloroplasts host it.', chunk_ids: [] }], chunk_ids: [] })).toEqual([
      'Photosynthesis',
      '',
      'Light to sugar.',
      '',
      '  • Chloroplasts host it.',
    ]);
  });

  it('refuses bad arguments with exit 2 before calling the gateway', async () => {
    const err: string[] = [];
    const io: CliIo = {
      env: { OPENPAW_TOKEN: 'unused.token', OPENPAW_API_URL: 'http://127.0.0.1:9' },
      cwd: '/',
      stdout: () => undefined,
      stderr: (line) => err.push(line),
      fetch: () => Promise.reject(new Error('no call expected')),
      now: () => 0,
      sleep: () => Promise.resolve(),
      prompt: () => Promise.resolve(undefined),
      close: () => undefined,
    };
    const cases: [string[], RegExp][] = [
      [['notebook'], /openpaw notebook add <notebook>/],
      [['notebook', 'draw', 'nb1'], /add, chat, quiz, flashcards or summary, not "draw"/],
      [['notebook', 'quiz', 'bad notebook'], /notebook "bad notebook": letters, digits/],
      [['notebook', 'quiz', 'nb1', '--count', 'two'], /--count must be a whole number/],
      [['notebook', 'summary', 'nb1', '--difficulty', 'hard'], /--difficulty: easy, medium or hard, for a quiz/],
      [['notebook', 'chat', 'nb1', 'why?', '--sources', 'abc'], /--sources: "abc" is not a source id/],
    ];
    for (const [argv, message] of cases) {
      err.length = 0;
      expect(await runCli(argv, io)).toBe(EXIT.usage);
      expect(err.join('\n')).toMatch(message);
    }
  });
});
