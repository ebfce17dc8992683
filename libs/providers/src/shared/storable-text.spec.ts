import { isStorableText } from '@openpaw/contracts';
import { storableJsonReviver, toStorableText } from './storable-text.js';

describe('toStorableText', () => {
  it('drops NUL and replaces unpaired surrogates, keeping paired ones', () => {
    expect(toStorableText('a\u0000b')).toBe('ab');
    expect(toStorableText('lone \uD83D high, lone \uDC3E low, 🐾 pair')).toBe('lone \uFFFD high, lone \uFFFD low, 🐾 pair');
    expect(toStorableText('\uDC3E\uD83D')).toBe('\uFFFD\uFFFD');
    expect(toStorableText('plain text ∑ 数学')).toBe('plain text ∑ 数学');
  });

  it('always gives text the edge would accept', () => {
    for (const text of ['\u0000', '\uD800', '\uDFFF\uD800\uDC00', 'x\u0000\uD83Dy', '']) expect(isStorableText(toStorableText(text))).toBe(true);
  });

  it('repairs every string of a parsed JSON reply', () => {
    expect(JSON.parse('{"title":"a\\u0000b","tags":["\\ud800"],"n":1}', storableJsonReviver)).toEqual({ title: 'ab', tags: ['\uFFFD'], n: 1 });
  });
});
