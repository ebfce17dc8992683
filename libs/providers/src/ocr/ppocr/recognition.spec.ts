import type { OcrBox, OcrChar } from '../port.js';
import { decodeLine, type RecognitionInput, withGapSpaces } from './recognition.js';

/** Classes: 0 blank, 1 "a", 2 "b", 3 "c", 4 "d", 5 space (the recogniser's last class). */
const DICTIONARY = ['a', 'b', 'c', 'd'];
const CLASSES = DICTIONARY.length + 2;

/** The recogniser's output for steps given as {class: probability}; what a step leaves out is spread evenly over the rest. */
function output(steps: readonly Readonly<Record<number, number>>[]): { data: Float32Array; dims: number[] } {
  const data = new Float32Array(steps.length * CLASSES);
  steps.forEach((step, t) => {
    const given = Object.values(step).reduce((sum, p) => sum + p, 0);
    const rest = (1 - given) / (CLASSES - Object.keys(step).length);
    for (let k = 0; k < CLASSES; k += 1) data[t * CLASSES + k] = step[k] ?? rest;
  });
  return { data, dims: [1, steps.length, CLASSES] };
}

const WHITE = { width: 40, height: 48, data: new Uint8Array(40 * 48 * 3).fill(255) };
const BOX = { x0: 0, y0: 0, x1: 40, y1: 48 };
const INPUT: RecognitionInput = { data: new Float32Array(0), dims: [1, 3, 48, 40], scale: 1, contentWidth: 40 };

describe('decodeLine: what the reader says it did not list (issue 25)', () => {
  it('gives each character its listed alternatives and the probability of its likeliest unlisted reading', () => {
    const decoded = decodeLine(output([{ 1: 0.9, 2: 0.05, 3: 0.01, 0: 0.03 }, { 0: 0.99 }]), DICTIONARY, INPUT, WHITE, BOX);
    const a = decoded.chars.find((c) => c.text === 'a');
    expect(a?.alternatives?.map((x) => x.text)).toEqual(['b', '']);
    // "c" at 0.01 is under the listing floor (0.02): the likeliest reading left out.
    expect(a?.unlisted).toBeCloseTo(0.01);
  });

  it('gives a near miss (a blank step that nearly read a character) the likeliest reading it leaves out, not its neighbours', () => {
    const decoded = decodeLine(output([{ 1: 0.97 }, { 0: 0.6, 2: 0.3, 1: 0.05, 4: 0.02 }, { 3: 0.97 }]), DICTIONARY, INPUT, WHITE, BOX);
    const miss = decoded.chars.find((c) => c.text === '');
    expect(miss?.alternatives).toEqual([{ text: 'b', confidence: expect.closeTo(0.3, 5) }]);
    // "a" (0.05) is the character before it, smeared over the blank step; "d" at 0.02 is what it leaves out.
    expect(miss?.unlisted).toBeCloseTo(0.02);
  });
});

describe('decodeLine: a glyph whose thin stroke fell under the ink cut (issue 25)', () => {
  /** A 40 × 48 page with two black strokes at x 10–14 and 16–20 (rows 10–30), and the column between them `between` grey at rows 10–12. */
  function page(between: number): { width: number; height: number; data: Uint8Array } {
    const data = new Uint8Array(40 * 48 * 3).fill(255);
    const paint = (x: number, y: number, v: number): void => {
      data.fill(v, (y * 40 + x) * 3, (y * 40 + x) * 3 + 3);
    };
    for (let y = 10; y <= 30; y += 1) for (const x of [10, 11, 12, 13, 14, 16, 17, 18, 19, 20]) paint(x, y, 0);
    for (let y = 10; y <= 12; y += 1) paint(15, y, between);
    return { width: 40, height: 48, data };
  }
  // One character read over both strokes (steps 2–3 of 8, 5 columns each).
  const read = output([{ 0: 0.99 }, { 0: 0.99 }, { 1: 0.99 }, { 1: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }]);

  it('gives the character both pieces where faint ink joins them (KaTeX\'s italic "n" broken at its shoulder)', () => {
    // Grey 180 is under the halfway cut (127) of black on white, over the faint one (204).
    const a = decodeLine(read, DICTIONARY, INPUT, page(180), BOX).chars.find((c) => c.text === 'a');
    expect(a?.box).toMatchObject({ x0: 10, x1: 21 });
  });

  it('keeps two pieces with paper between them apart: the other is ink the character does not account for', () => {
    const a = decodeLine(read, DICTIONARY, INPUT, page(255), BOX).chars.find((c) => c.text === 'a');
    expect((a?.box?.x1 ?? 0) - (a?.box?.x0 ?? 0)).toBe(5);
  });
});

describe('decodeLine: the line\'s ink, each glyph whole (issue 25)', () => {
  /** A 64 × 48 page: a "C" (an open ring) at x 4–28, rows 8–40, and a stroke at x 50–60, rows 10–30. */
  function page(): { width: number; height: number; data: Uint8Array } {
    const data = new Uint8Array(64 * 48 * 3).fill(255);
    for (let y = 0; y < 48; y += 1) {
      for (let x = 0; x < 64; x += 1) {
        const ring = Math.abs(Math.hypot(x - 16, y - 24) - 13) < 2.5 && x < 24;
        if (ring || (x >= 50 && x < 60 && y >= 10 && y <= 30)) data.fill(0, (y * 64 + x) * 3, (y * 64 + x) * 3 + 3);
      }
    }
    return { width: 64, height: 48, data };
  }
  const read = output([{ 3: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }, { 0: 0.99 }]);

  it('measures a glyph the line\'s box cuts as a whole (a "C" cut through its bowl is not two arcs one above the other)', () => {
    const box: OcrBox = { x0: 8, y0: 0, x1: 52, y1: 48 };
    const decoded = decodeLine(read, DICTIONARY, INPUT, page(), box);
    expect(decoded.inkBoxes).toEqual([{ x0: 1, y0: 9, x1: 24, y1: 40 }]);
  });

  it('leaves out a glyph of the next box that reaches into this one', () => {
    const box: OcrBox = { x0: 8, y0: 0, x1: 53, y1: 48 };
    expect(decodeLine(read, DICTIONARY, INPUT, page(), box).inkBoxes.some((b) => b.x0 === 50)).toBe(false);
  });
});

describe('withGapSpaces: word gaps on the ink (issue 25)', () => {
  /** Characters 12 px high at the given columns, each its own blob of ink. */
  const line = (glyphs: readonly (readonly [string, number, number])[]): { chars: OcrChar[]; ink: OcrBox[] } => {
    const boxes = glyphs.map(([, x0, x1]) => ({ x0, y0: 0, x1, y1: 12 }));
    return { chars: glyphs.map(([text], i) => ({ text, confidence: 1, box: boxes[i]!, ownInk: true })), ink: boxes };
  };
  const spelled = (chars: readonly OcrChar[]): string => chars.map((c) => (c.text === '' ? `[${c.alternatives?.[0]?.text ?? ''}?]` : c.text)).join('');

  it('gives a space where the ink shows a word gap the recogniser dropped', () => {
    const { chars, ink } = line([['k', 0, 8], ['o', 16, 24], ['u', 26, 32]]);
    expect(spelled(withGapSpaces(chars, ink))).toBe('k ou');
  });

  it('reads a space the ink shows as sure, whatever its neighbours\' doubts (they are weighed on their own)', () => {
    // Measured (seed 2511, "7y − 36 = 25"): "−" read at 0.82, its other spellings the rest; the space after it took 0.82 and refused the reading.
    const { chars, ink } = line([['7', 0, 8], ['-', 16, 24], ['3', 34, 42]]);
    const unsureSign = chars.map((c) => (c.text === '-' ? { ...c, confidence: 0.82, alternatives: [{ text: '－', confidence: 0.12 }] } : c));
    const spaced = withGapSpaces(unsureSign, ink);
    expect(spelled(spaced)).toBe('7 - 3');
    expect(spaced.filter((c) => c.text === ' ').map((c) => c.confidence)).toEqual([1, 1]);
    expect(spaced.find((c) => c.text === '-')?.confidence).toBe(0.82);
  });

  it('doubts a space where the gap stands out from the letters\' spacing but is narrower than a word gap (a shrunk "work out" is not "workout")', () => {
    // Measured on a 40 % copy: "Work out" read "Workout", the word gap 5 px against the letters' 2–4 px.
    const { chars, ink } = line([['W', 0, 16], ['o', 16, 23], ['r', 25, 28], ['k', 31, 39], ['o', 44, 52], ['u', 54, 58], ['t', 62, 66]]);
    // The recogniser weighed a space after "k" (0.28 measured), none elsewhere.
    const spaced = withGapSpaces(chars, ink, new Map(chars.map((c, i) => [c, i === 3 ? 0.28 : 0.00001])));
    expect(spelled(spaced)).toBe('Work[ ?]out');
    const doubt = spaced.find((c) => c.text === '');
    expect(doubt?.confidence).toBeLessThan(0.98);
    expect(doubt?.alternatives?.[0]?.confidence).toBeGreaterThan(0.02);
  });

  it('reads a gap as wide as a word gap\'s within a word as no space where the recogniser weighed none (a monospaced "l")', () => {
    const { chars, ink } = line([['W', 0, 16], ['o', 16, 23], ['r', 25, 28], ['k', 31, 39], ['o', 44, 52], ['u', 54, 58], ['t', 62, 66]]);
    expect(spelled(withGapSpaces(chars, ink, new Map(chars.map((c) => [c, 0.00001]))))).toBe('Workout');
  });

  it('reads letters evenly spaced as one word, with no doubt', () => {
    const { chars, ink } = line([['W', 0, 16], ['o', 19, 26], ['r', 29, 32], ['k', 35, 43], ['o', 46, 54]]);
    expect(spelled(withGapSpaces(chars, ink))).toBe('Worko');
  });
});
