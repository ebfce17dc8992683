import { enlargementFor } from './ppocr-reader.js';

const line = (height: number): { x0: number; y0: number; x1: number; y1: number } => ({ x0: 0, y0: 10, x1: 200, y1: 10 + height });

describe('enlargementFor: small print decided from the text boxes, before recognising (issue 25)', () => {
  it('reads print of ordinary size as it is', () => {
    expect(enlargementFor([line(40), line(36)], 32)).toBeUndefined();
    expect(enlargementFor([line(10)], undefined)).toBeUndefined();
    expect(enlargementFor([], 32)).toBeUndefined();
  });

  it('enlarges small print until its median line reaches the height asked for, at most 4 times', () => {
    expect(enlargementFor([line(16), line(16), line(40)], 32)).toBe(2);
    // A line and a stacked fraction's lone denominator: the upper middle, the line, decides.
    expect(enlargementFor([line(23), line(37)], 32)).toBeUndefined();
    expect(enlargementFor([line(4)], 32)).toBe(4);
  });
});
