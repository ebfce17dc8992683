import { contentDigestOf, normaliseSubmissionText, normaliseSubmissionUrl, problemIdempotencyKey } from './idempotency-key.js';

const keyOfText = (text: string, userId = 'user-1', intent = 'solve'): string =>
  problemIdempotencyKey(contentDigestOf({ kind: 'text', text }), userId, intent);

describe('problem idempotency key', () => {
  it('given trivially different copies of the same text, then the same key', () => {
    const copies = ['2x + 3 = 7', '  2x + 3 = 7\n', '2X + 3 = 7', '2x+3=7', '2x\t+  3 =\u00a07', '２x + ３ = ７', 'Solve: 2x + 3 = 7'];
    const keys = new Set(copies.slice(0, -1).map((text) => keyOfText(text)));
    expect(keys.size).toBe(1);
    expect(keyOfText(copies.at(-1)!)).not.toBe(keyOfText(copies[0]!));
  });

  it('keeps the whitespace that separates words', () => {
    expect(normaliseSubmissionText('  What   is 12 * (3 + 4)? ')).toBe('what is 12*(3+4)?');
    expect(normaliseSubmissionText('a b')).not.toBe(normaliseSubmissionText('ab'));
    expect(keyOfText('x y = 1')).not.toBe(keyOfText('xy = 1'));
  });

  it('given another user or another intent, then another key', () => {
    const base = keyOfText('2x + 3 = 7');
    expect(keyOfText('2x + 3 = 7', 'user-2')).not.toBe(base);
    expect(keyOfText('2x + 3 = 7', 'user-1', 'explain')).not.toBe(base);
    // Length-prefixed parts: moving characters between user id and intent changes the key.
    expect(problemIdempotencyKey('text:aa', 'ab', 'c')).not.toBe(problemIdempotencyKey('text:aa', 'a', 'bc'));
  });

  it('keys images on their bytes and URLs on their normalised form, each kind apart', () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    expect(contentDigestOf({ kind: 'image', bytes })).toBe(contentDigestOf({ kind: 'image', bytes: Uint8Array.from(bytes) }));
    expect(contentDigestOf({ kind: 'image', bytes })).not.toBe(contentDigestOf({ kind: 'image', bytes: bytes.subarray(1) }));
    expect(contentDigestOf({ kind: 'image', bytes })).toMatch(/^image:[0-9a-f]{64}$/);

    expect(normaliseSubmissionUrl('HTTPS://Example.COM:443/p?q=1#frag')).toBe('https://example.com/p?q=1');
    expect(contentDigestOf({ kind: 'url', url: 'https://example.com/p' })).toBe(contentDigestOf({ kind: 'url', url: 'https://EXAMPLE.com/p#x' }));
    expect(contentDigestOf({ kind: 'url', url: 'https://example.com/p' })).not.toBe(contentDigestOf({ kind: 'url', url: 'https://example.com/P' }));

    // The same characters as text and as a URL are different submissions.
    expect(contentDigestOf({ kind: 'text', text: 'https://example.com/p' })).not.toBe(contentDigestOf({ kind: 'url', url: 'https://example.com/p' }));
  });
});
