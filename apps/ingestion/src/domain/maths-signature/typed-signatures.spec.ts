import { normaliseText } from '../text-normalisation.js';
import { extractMathsSignature, TYPED_SIGNATURES_KEPT } from './maths-signature.js';
import { warmUpEngine } from '@openpaw/maths';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

describe('typed problems\' signatures are read once while kept', () => {
  it('answers a copy of a typed problem with the signature already read, unchangeable', () => {
    const text = normaliseText('Solve 3x + 7 = 22 for x');
    const first = extractMathsSignature(text);
    expect(first.signature?.canonical).toBeDefined();
    const copy = extractMathsSignature(text);
    expect(copy).toBe(first);
    expect(Object.isFrozen(copy.signature)).toBe(true);
    expect(Object.isFrozen(copy.signature?.numbers)).toBe(true);
  });

  it('reads again what carries a reading (its confidences belong to that image) and what gave no signature', () => {
    const text = normaliseText('Solve 2x + 1 = 9');
    const typed = extractMathsSignature(text);
    const read = extractMathsSignature(text, [{ text: '2x+1=9', confidence: 0.9 }]);
    expect(read).not.toBe(typed);
    expect(read.signature?.hash).toBe(typed.signature?.hash);
    expect(read.signature?.confidence).toBe(0.9);
    expect(extractMathsSignature(text, [{ text: '2x+1=9', confidence: 0.9 }])).not.toBe(read);
    const prose = normaliseText('What is the capital of France?');
    expect(extractMathsSignature(prose).signature).toBeUndefined();
    expect(extractMathsSignature(prose)).not.toBe(extractMathsSignature(prose));
  });

  it('keeps the most recently used signatures, a bounded number of them', () => {
    const text = (i: number): string => normaliseText(`Solve x + ${i} = ${2 * i + 1}`);
    const first = extractMathsSignature(text(0));
    const second = extractMathsSignature(text(1));
    for (let i = 2; i < TYPED_SIGNATURES_KEPT; i += 1) extractMathsSignature(text(i));
    expect(extractMathsSignature(text(0))).toBe(first); // used again: now the most recent
    extractMathsSignature(text(TYPED_SIGNATURES_KEPT)); // one more than kept: the least recent goes
    const again = extractMathsSignature(text(1));
    expect(again).not.toBe(second);
    expect(again).toEqual(second);
    expect(extractMathsSignature(text(0))).toBe(first);
  });
});
