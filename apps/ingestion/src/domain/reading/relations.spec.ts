import type { OcrBox, OcrChar, OcrLine } from '@openpaw/providers/ocr';
import { relationShape, relationsFromInk } from './relations.js';

const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });

/** "7 ? 3": digits 30 px tall; the relation at x 40–60 whose ink is `relationInk`. */
function line(relation: OcrChar, relationInk: readonly OcrBox[]): OcrLine {
  const seven: OcrChar = { text: '7', confidence: 0.999, box: box(0, 20, 16, 50), ownInk: true };
  const three: OcrChar = { text: '3', confidence: 0.999, box: box(80, 20, 96, 50), ownInk: true };
  const chars = [seven, relation, three];
  return { text: chars.map((c) => c.text).join(''), confidence: 0.6, box: box(0, 15, 100, 55), chars, inkBoxes: [seven.box!, ...relationInk, three.box!] };
}

// Measured on a clean original (seed 2511, Liberation Mono "≥"): the chevron at y 29–51, its bar at y 54–57, the same columns.
const chevron = box(40, 22, 60, 44);
const bar = box(40, 47, 60, 49);

describe('relationsFromInk (issue 25)', () => {
  it('reads a chevron over a bar as "≥" where the reader split it between "≥" and ">"', () => {
    const read = relationsFromInk(line({ text: '≥', confidence: 0.6, box: box(40, 22, 60, 49), ownInk: true, alternatives: [{ text: '>', confidence: 0.28 }, { text: '=', confidence: 0.1 }], unlisted: 0.01 }, [chevron, bar]));
    const relation = read.chars[1]!;
    expect(relation.text).toBe('≥');
    expect(relation.confidence).toBeCloseTo(0.6 / 0.71, 5);
    expect(relation.alternatives).toEqual([{ text: '=', confidence: expect.closeTo(0.1 / 0.71, 5) }]);
  });

  it('reads it "≥" where the reader read ">" and listed "≥" (a bar a few pixels below the chevron), and a lone chevron ">"', () => {
    const asGreater: OcrChar = { text: '>', confidence: 0.94, box: box(40, 22, 60, 44), ownInk: true, alternatives: [{ text: '≥', confidence: 0.05 }] };
    expect(relationsFromInk(line(asGreater, [chevron, bar])).text).toBe('7≥3');
    const asGreaterEqual: OcrChar = { text: '≥', confidence: 0.7, box: box(40, 22, 60, 44), ownInk: true, alternatives: [{ text: '>', confidence: 0.25 }] };
    const lone = relationsFromInk(line(asGreaterEqual, [chevron]));
    expect(lone.text).toBe('7>3');
    expect(lone.chars[1]!.confidence).toBeCloseTo(1, 5);
  });

  it('refuses a sure ">" over a chevron with its bar: the ink rules out the reader\'s only relation (seed 7919, a noisy copy of "8n − 31 ≥ 41")', () => {
    const sure: OcrChar = { text: '>', confidence: 0.993, box: box(40, 22, 60, 49), ownInk: true, alternatives: [], unlisted: 0.006 };
    const relation = relationsFromInk(line(sure, [chevron, bar])).chars[1]!;
    expect(relation.confidence).toBe(0);
    expect(relation.alternatives).toEqual([]);
  });

  it('says nothing from a piece of a chevron (a tilted copy\'s broken stroke, 4 × 2 px beside 30 px digits)', () => {
    const piece = box(47, 31, 51, 33);
    expect(relationShape(piece, [piece], 30)).toBeUndefined();
    const split: OcrChar = { text: '≥', confidence: 0.556, box: piece, ownInk: true, alternatives: [{ text: '>', confidence: 0.428 }] };
    expect(relationsFromInk(line(split, [piece])).chars[1]).toBe(split);
  });

  it('leaves the reading as it was where the ink does not tell, and keeps readings that are no relation', () => {
    const unsure: OcrChar = { text: '≥', confidence: 0.6, box: box(40, 22, 60, 49), ownInk: true, alternatives: [{ text: '>', confidence: 0.3 }] };
    // Two bars under the chevron: not a shape either relation prints.
    expect(relationsFromInk(line(unsure, [chevron, bar, box(40, 51, 60, 53)])).chars[1]).toBe(unsure);
    expect(relationShape(box(40, 22, 60, 49), [box(40, 40, 60, 42), box(40, 45, 60, 47)])).toBeUndefined();
    // A root's tick read "√" with "<" listed: the tick alone rules out "≤", and says nothing of "√".
    const tick: OcrChar = { text: '√', confidence: 0.7, box: box(40, 22, 60, 44), ownInk: true, alternatives: [{ text: '<', confidence: 0.2 }, { text: '≤', confidence: 0.05 }] };
    const read = relationsFromInk(line(tick, [chevron])).chars[1]!;
    expect(read.text).toBe('√');
    expect(read.alternatives?.map((a) => a.text)).toEqual(['<']);
  });
});
