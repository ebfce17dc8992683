import { foldText, normaliseTitle, stem } from './normalise.js';
import { levenshteinSimilarity } from './similarity.js';

describe('text folding and similarity', () => {
  it('folds case, accents, LaTeX and punctuation', () => {
    expect(normaliseTitle('BERT: Pre-training of Deep {B}idirectional Transformers!')).toBe('bert pre training of deep bidirectional transformers');
    expect(foldText('Schrödinger’s \\emph{cat}')).toBe('schrodinger s cat');
  });

  it('measures edit similarity, and stops early below a threshold', () => {
    expect(levenshteinSimilarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7, 10);
    expect(levenshteinSimilarity('same', 'same')).toBe(1);
    expect(levenshteinSimilarity('', '')).toBe(1);
    expect(levenshteinSimilarity('abcdefghij', 'abcdefghiX', 0.95)).toBe(0);
    expect(levenshteinSimilarity('abcdefghij', 'abcdefghiX', 0.85)).toBeCloseTo(0.9, 10);
  });

  it('stems plural and gerund forms together', () => {
    expect(stem('networks')).toBe(stem('network'));
    expect(stem('learning')).toBe('learn');
    expect(stem('studies')).toBe('study');
    expect(stem('molecules')).toBe(stem('molecule'));
    expect(stem('imaging')).toBe(stem('images'));
    expect(stem('processes')).toBe(stem('process'));
  });
});
