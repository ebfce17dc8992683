import { routeIntent } from './intent-router.js';

describe('the rules intent router', () => {
  it.each([
    ['Create a quiz on photosynthesis', 'quiz', {}],
    ['Make me 10 flashcards about the cell', 'flashcards', { num_cards: 10 }],
    ['Summarize chapter 2 in 3 key points', 'summary', { num_points: 3 }],
    ['quiz me on the Calvin cycle', 'quiz', {}],
    ['Can you write a hard multiple-choice test with 7 questions?', 'quiz', { num_questions: 7, difficulty: 'hard' }],
    ['Please turn my notes into flash cards', 'flashcards', {}],
    ['TL;DR of these sources please', 'summary', {}],
    ['Generate flashcards and then a quiz', 'flashcards', {}],
  ])('routes "%s" to an artifact job (%s)', (message, type, options) => {
    expect(routeIntent(message)).toEqual({ mode: 'artifact', artifactType: type, statedOptions: options, reason: expect.stringMatching(/^rules: /) });
  });

  it.each(['What is photosynthesis?', 'What is a quiz?', 'Explain how flashcards help memory', 'Where do the Calvin cycle reactions happen?'])(
    'answers "%s" as chat',
    (message) => {
      expect(routeIntent(message).mode).toBe('chat');
    },
  );
});
