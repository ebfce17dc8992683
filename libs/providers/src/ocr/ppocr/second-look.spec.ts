import type { OcrChar } from '../port.js';
import { fuseSecondLook, SECOND_LOOK_MARGINS, secondLookBox } from './second-look.js';

const glyph = (text: string, confidence: number, alternatives: OcrChar['alternatives'] = []): OcrChar => ({ text, confidence, alternatives, box: { x0: 10, y0: 0, x1: 20, y1: 12 }, ownInk: true });

describe('secondLookBox', () => {
  it('crops a glyph with room above and below by the margin, a fixed room beside it, and keeps a bar in the middle', () => {
    expect(secondLookBox({ x0: 100, y0: 40, x1: 110, y1: 60 }, 0.5, 500, 200)).toEqual({ x0: 96, y0: 30, x1: 114, y1: 70 });
    // A minus 12 px wide, 2 px high: the crop is as tall as it is wide plus the margins, centred on the bar.
    expect(secondLookBox({ x0: 100, y0: 50, x1: 112, y1: 52 }, SECOND_LOOK_MARGINS[0], 500, 200)).toEqual({ x0: 98, y0: 43, x1: 114, y1: 59 });
    expect(secondLookBox({ x0: 0, y0: 0, x1: 10, y1: 10 }, 0.5, 12, 12)).toEqual({ x0: 0, y0: 0, x1: 12, y1: 12 });
  });
});

describe('fuseSecondLook', () => {
  it('takes a sure look that reads what the line read weighed (an exponent "?" 0.6 with "2" listed), with the look\'s probability', () => {
    const fused = fuseSecondLook(glyph('?', 0.6, [{ text: '2', confidence: 0.1 }]), [[glyph('2', 0.995)], [glyph('2', 0.97)]], true);
    expect(fused).toMatchObject({ text: '2', confidence: 0.995, ownInk: true, box: { x0: 10 } });
    // The wider look sure of another listed character: the looks disagree, the line read stands.
    const line = glyph('>', 0.9, [{ text: 'v', confidence: 0.05 }]);
    expect(fuseSecondLook(line, [[glyph('v', 0.99)], [glyph('>', 0.99)]], true)).toBe(line);
  });

  it('keeps the line read\'s spelling of the same character ("²" read alone is "2": where it sits is the geometry\'s call)', () => {
    expect(fuseSecondLook(glyph('²', 0.52, [{ text: '2', confidence: 0.46 }]), [[glyph('2', 0.999)], []], true)).toMatchObject({ text: '²', confidence: 0.999 });
  });

  it('lets looks at every margin outvote a line read that never listed their reading, only where the glyph\'s ink is its own', () => {
    const line = glyph('*', 0.53, [{ text: '°', confidence: 0.11 }, { text: '?', confidence: 0.1 }]);
    expect(fuseSecondLook(line, [[glyph('3', 0.999)], [glyph('3', 0.99)]], true)).toMatchObject({ text: '3', confidence: 0.99 });
    // The ink shared with a neighbour: the looks may be reading that neighbour again.
    expect(fuseSecondLook(line, [[glyph('3', 0.999)], [glyph('3', 0.99)]], false)).toBe(line);
    // One margin unsure, or the margins disagreeing: the line read stands.
    expect(fuseSecondLook(line, [[glyph('3', 0.999)], [glyph('3', 0.9)]], true)).toBe(line);
    expect(fuseSecondLook(line, [[glyph('3', 0.999)], [glyph('8', 0.99)]], true)).toBe(line);
  });

  it('never makes a reading surer where the looks read several characters, none, or unsure', () => {
    const line = glyph('c', 0.45, [{ text: 'x', confidence: 0.05 }]);
    expect(fuseSecondLook(line, [[glyph('9', 0.99), glyph('x', 0.99)], [glyph('x', 0.99)]], true)).toBe(line);
    expect(fuseSecondLook(line, [[], [glyph('x', 0.99)]], true)).toBe(line);
    expect(fuseSecondLook(line, [[glyph('x', 0.97)], [glyph('x', 0.99)]], true)).toBe(line);
  });

  it('takes a sign\'s spellings in the same strokes together ("一" and "-" are one bar) and writes the maths sign', () => {
    const minus = glyph('-', 0.88, [{ text: '—', confidence: 0.05 }]);
    const fused = fuseSecondLook(minus, [[glyph('一', 0.74, [{ text: '-', confidence: 0.18 }, { text: '—', confidence: 0.04 }, { text: '－', confidence: 0.03 }, { text: '二', confidence: 0.005 }])], [glyph('-', 0.99)]], true);
    expect(fused.text).toBe('-');
    expect(fused.confidence).toBeCloseTo(0.99);
    expect(fused.alternatives).toEqual([{ text: '二', confidence: 0.005 }]);
  });
});
