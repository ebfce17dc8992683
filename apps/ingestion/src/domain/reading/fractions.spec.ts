import type { OcrBox, OcrChar, OcrReading } from '@openpaw/providers/ocr';
import { bracketFractions, findFractions, inlineFractions } from './fractions.js';

const glyph = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });

describe('findFractions', () => {
  it('finds a bar with a glyph just above and just below it in its columns, and not a minus on the line', () => {
    // "Add 1 over 2 - 3": letters 30 px tall on a baseline at 60; the fraction bar at y 44–46 over x 100–130.
    const letters = [glyph(10, 30, 30, 60), glyph(32, 30, 50, 60), glyph(52, 30, 70, 60)];
    const fraction = [glyph(108, 18, 122, 40), glyph(100, 44, 130, 46), glyph(108, 50, 122, 72)];
    const minus = glyph(150, 44, 170, 46);
    const found = findFractions([...letters, ...fraction, minus, glyph(180, 30, 198, 60)], 30);
    expect(found).toEqual([{ bar: fraction[1], numerator: fraction[0], denominator: fraction[2] }]);
  });

  it('gives a numerator broken into pieces at the ink cut all its pieces (a 20 px DejaVu "2": its ball and its foot apart from its stroke)', () => {
    const two = [glyph(299, 29, 304, 38), glyph(297, 31, 299, 33), glyph(297, 38, 304, 41)];
    const bar = glyph(296, 44, 305, 45);
    const three = glyph(297, 47, 304, 59);
    expect(findFractions([...two, bar, three], 15)).toEqual([{ bar, numerator: glyph(297, 29, 304, 41), denominator: three }]);
  });

  it('does not take a bar for a fraction bar when other ink shares its columns (a stack it cannot write as one fraction)', () => {
    const fraction = [glyph(108, 18, 122, 40), glyph(100, 44, 130, 46), glyph(108, 50, 122, 72), glyph(108, 76, 122, 98)];
    expect(findFractions(fraction, 30)).toEqual([]);
    // A mark above the numerator's rows is not the numerator's.
    expect(findFractions([glyph(110, 8, 114, 12), ...fraction.slice(0, 3)], 30)).toEqual([]);
  });
});

describe('bracketFractions', () => {
  /** One line read from the redrawn page: each character 10 px wide from x = 10 i. */
  const reading = (text: string): OcrReading => {
    const chars: OcrChar[] = [...text].map((c, i) => ({ text: c, confidence: 0.999, box: { x0: 10 * i, y0: 0, x1: 10 * i + 10, y1: 30 } }));
    return { reader: 'test', local: true, width: 400, height: 40, lines: [{ text, confidence: 0.999, box: { x0: 0, y0: 0, x1: 10 * text.length, y1: 30 }, chars }] };
  };
  // "Add x+1/2": the numerator "x+1" drawn at x 40–70, the slash at 70–80, the denominator at 80–90.
  const placed = [{ numerator: [40, 70], slash: [70, 80], denominator: [80, 90] }] as const;

  it('brackets the numerator and the denominator: "x+1 over 2" is (x+1)/(2), never x + 1/2', () => {
    expect(bracketFractions(reading('Add x+1/2'), placed)?.lines[0]?.text).toBe('Add (x+1)/(2)');
  });

  it('gives no reading when the slash was read as something else, or a part as nothing', () => {
    expect(bracketFractions(reading('Add x+1l2'), placed)).toBeUndefined();
    expect(bracketFractions(reading('Add x+1/ '), placed)).toBeUndefined();
  });
});

describe('inlineFractions', () => {
  /** A white page, 200 × 100, with dark rectangles. */
  const page = (...dark: OcrBox[]) => {
    const data = Buffer.alloc(200 * 100 * 3, 255);
    for (const b of dark) for (let y = b.y0; y < b.y1; y += 1) data.fill(20, (y * 200 + b.x0) * 3, (y * 200 + b.x1) * 3);
    return { data, width: 200, height: 100, channels: 3 };
  };
  const letters = [glyph(10, 30, 30, 60), glyph(32, 30, 50, 60)];
  const fraction = { bar: glyph(100, 44, 130, 46), numerator: glyph(108, 18, 122, 40), denominator: glyph(108, 50, 122, 72) };

  it('lays the fraction on the baseline: numerator, slash, denominator, the page widened to hold them', () => {
    const redrawn = inlineFractions(page(...letters, fraction.bar, fraction.numerator, fraction.denominator), [...letters, fraction.bar, fraction.numerator, fraction.denominator], [fraction], 30);
    expect(redrawn?.placed).toHaveLength(1);
    expect(redrawn!.page.width).toBeGreaterThan(200);
  });

  it('redraws nothing when the ink was measured on another page (a reader that turned it: the bar is not dark here), or past its edge', () => {
    expect(inlineFractions(page(...letters), [...letters, fraction.bar, fraction.numerator, fraction.denominator], [fraction], 30)).toBeUndefined();
    const past = { ...fraction, denominator: glyph(108, 50, 122, 140) };
    expect(inlineFractions(page(...letters, fraction.bar), [...letters, fraction.bar], [past], 30)).toBeUndefined();
  });
});
