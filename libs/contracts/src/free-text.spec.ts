import { z } from 'zod';
import { FREE_TEXT_MESSAGE, freeText, isStorableText } from './free-text.js';

describe('freeText', () => {
  it('accepts ordinary text, astral characters (paired surrogates) included', () => {
    expect(isStorableText('x² + 3 = 7 — ∫ f(x) dx, 数学, 🐾')).toBe(true);
    expect(freeText().trim().min(1).parse('  photosynthesis 🌿  ')).toBe('photosynthesis 🌿');
  });

  it.each([
    ['a NUL', 'before\u0000after'],
    ['a lone high surrogate', 'broken \uD83D end'],
    ['a lone low surrogate', '\uDC3E at the start'],
    ['surrogates in the wrong order', '\uDC3E\uD83D'],
  ])('refuses %s, naming the field', (_what, text) => {
    expect(isStorableText(text)).toBe(false);
    const result = z.object({ prompt: freeText().max(100) }).safeParse({ prompt: text });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['prompt'], message: FREE_TEXT_MESSAGE })]);
  });

  it('keeps the bounds chained after it', () => {
    expect(freeText().max(3).safeParse('abcd').success).toBe(false);
  });

  it('adds nothing to the JSON Schema (generated contracts and their compatibility stay as they were)', () => {
    expect(z.toJSONSchema(freeText().min(1).max(5))).toEqual(z.toJSONSchema(z.string().min(1).max(5)));
  });
});
