import { artifactFingerprint, artifactJobKey, resolveOptions } from './fingerprint.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('the request fingerprint', () => {
  it('is the same for the same user, notebook, type, source ids (in any order) and options (in any key order)', () => {
    const fp = artifactFingerprint('u1', 'nb', 'quiz', [A, B], { num_questions: 5, difficulty: 'medium' });
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(artifactFingerprint('u1', 'nb', 'quiz', [B, A, A], { difficulty: 'medium', num_questions: 5 })).toBe(fp);
  });

  it.each([
    ['user', artifactFingerprint('u2', 'nb', 'quiz', [A, B], { num_questions: 5, difficulty: 'medium' })],
    ['notebook', artifactFingerprint('u1', 'nb2', 'quiz', [A, B], { num_questions: 5, difficulty: 'medium' })],
    ['type', artifactFingerprint('u1', 'nb', 'flashcards', [A, B], { num_questions: 5, difficulty: 'medium' })],
    ['sources', artifactFingerprint('u1', 'nb', 'quiz', [A], { num_questions: 5, difficulty: 'medium' })],
    ['options', artifactFingerprint('u1', 'nb', 'quiz', [A, B], { num_questions: 6, difficulty: 'medium' })],
  ])('changes with the %s', (_part, other) => {
    expect(other).not.toBe(artifactFingerprint('u1', 'nb', 'quiz', [A, B], { num_questions: 5, difficulty: 'medium' }));
  });

  it('does not confuse parts that concatenate alike', () => {
    expect(artifactFingerprint('ab', 'c', 'quiz', [], {})).not.toBe(artifactFingerprint('a', 'bc', 'quiz', [], {}));
  });

  it('resolves options with the defaults of the type, body over message, other types’ options dropped', () => {
    expect(resolveOptions('quiz', {})).toEqual({ num_questions: 5, difficulty: 'medium' });
    expect(resolveOptions('quiz', { num_questions: 3 }, { num_questions: 4, num_cards: 9 })).toEqual({ num_questions: 4, difficulty: 'medium' });
    expect(resolveOptions('flashcards', { num_questions: 3 })).toEqual({ num_cards: 10 });
    expect(resolveOptions('summary', {}, { num_points: 2 })).toEqual({ num_points: 2 });
    expect(artifactJobKey('f'.repeat(64), 2)).toBe(`artifact_job:${'f'.repeat(64)}:2`);
  });
});
