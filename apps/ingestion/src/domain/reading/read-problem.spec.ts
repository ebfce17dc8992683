import type { OcrAlternative, OcrBox, OcrChar, OcrReader, OcrReading, OcrReadOptions } from '@openpaw/providers/ocr';
import sharp from 'sharp';
import type { NormalisedImage } from '../image-normalisation.js';
import { extractMathsSignature } from '../maths-signature/index.js';
import { blankPage, scaledLineReader } from '../test-support/scaled-line-reader.js';
import { DEFAULT_READING, judgeReading, readProblem } from './read-problem.js';

/** Where a character is read unsure: its position in the line's text, its probability and the reader's other readings. */
interface Doubt {
  readonly at: number;
  readonly confidence: number;
  readonly alternatives: readonly OcrAlternative[];
  /** The reader's likeliest reading of the place that it did not list. */
  readonly unlisted?: number;
  readonly ownInk?: boolean;
}

const LINE_BOX: OcrBox = { x0: 0, y0: 0, x1: 1000, y1: 60 };

/** One line read sure (0.999 a character) but where `doubts` say; every character 40 px tall on one baseline, 20 px apart. */
function reading(text: string, doubts: readonly Doubt[] = [], ink?: readonly OcrBox[]): OcrReading {
  const chars: OcrChar[] = [...text].map((c, i) => {
    const doubt = doubts.find((d) => d.at === i);
    const box = { x0: 20 * i, y0: 10, x1: 20 * i + 16, y1: 50 };
    if (doubt === undefined) return { text: c, confidence: 0.999, box };
    const { at: _at, ...read } = doubt;
    return { text: c, ...read, box };
  });
  return { reader: 'test', local: true, width: 1000, height: 200, lines: [{ text, confidence: Math.min(...chars.map((c) => c.confidence)), box: LINE_BOX, chars }], ...(ink === undefined ? {} : { ink }) };
}

describe('judgeReading', () => {
  // The maths engine's first read in a process loads and compiles its parser: on a loaded machine that
  // alone can outlast a check's budget, and an unchecked reading is (rightly) refused.
  beforeAll(() => extractMathsSignature('2x + 3 = 7'));

  it('refuses a doubt whose readings the maths engine could not check within its budget, never letting a rival that parsed win', () => {
    // "-" at 0.6 against "+" at 0.38: with each reading checked, two maths fit and the reading is refused;
    // a check that ran out of time is no verdict that the "-" reading is not maths.
    const doubt = reading('Solve 2x - 3 = 7', [{ at: 9, confidence: 0.6, alternatives: [{ text: '+', confidence: 0.38 }], ownInk: true }]);
    expect(judgeReading(doubt, { ...DEFAULT_READING, mathsBudget: { steps: 1, millis: 2_000 } })).toMatchObject({
      status: 'unreadable',
      reason: expect.stringMatching(/"-" 0\.60 \(a reading of them could not be checked against the maths in time\)/),
    });
    expect(judgeReading(doubt)).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/2 different maths fit/) });
  });

  it('accepts a sure reading, its maths tokens carrying their confidence (the spellings of one character pooled)', () => {
    const outcome = judgeReading(reading('Solve for y: 5y - 4 = 2y + 11', [{ at: 16, confidence: 0.95, alternatives: [{ text: '－', confidence: 0.04 }] }]));
    expect(outcome).toMatchObject({ status: 'read', reading: { text: 'Solve for y: 5y - 4 = 2y + 11' } });
    if (outcome.status !== 'read') return;
    expect(outcome.reading.tokens.find((t) => t.text === '-')?.confidence).toBeCloseTo(0.99);
    expect(outcome.reading.confidence).toBeCloseTo(0.99);
  });

  it('reads a relation the reader split between "≥" and ">" as its ink shows it: a chevron over a bar is "≥" (issue 25)', () => {
    const split = reading('Solve for n: 8n + 4 ≥ 47', [{ at: 20, confidence: 0.6, alternatives: [{ text: '>', confidence: 0.38 }], unlisted: 0.01, ownInk: true }]);
    expect(judgeReading(split)).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/read unsure: "≥" 0.60/) });
    const chevronOverBar = [{ x0: 400, y0: 10, x1: 416, y1: 40 }, { x0: 400, y0: 44, x1: 416, y1: 46 }];
    const withInk = { ...split, lines: split.lines.map((l) => ({ ...l, inkBoxes: chevronOverBar })) };
    expect(judgeReading(withInk)).toMatchObject({ status: 'read', reading: { text: 'Solve for n: 8n + 4 ≥ 47' } });
  });

  it('refuses the unknown run into "for" (a lost space), never answering what the prose no longer asks', () => {
    const outcome = judgeReading(reading('Solve forn: 2n + 29 = 55'));
    expect(outcome).toMatchObject({ status: 'unreadable', reason: expect.stringContaining('the unknown run into "for"') });
    // A word that merely begins with "for" is not doubted.
    expect(judgeReading(reading('Write in the form: y = 2x + 3'))).toMatchObject({ status: 'read' });
    expect(judgeReading(reading('Solve for n: 2n + 29 = 55'))).toMatchObject({ status: 'read' });
  });

  it('refuses a relation read at 0.87 when the reader gave "≤" a tenth: other maths holds too much of the probability', () => {
    const outcome = judgeReading(reading('Solve for n: 8n + 4 < 47', [{ at: 20, confidence: 0.87, alternatives: [{ text: '≤', confidence: 0.1 }, { text: '＜', confidence: 0.03 }] }]));
    expect(outcome).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/"<" 0\.87 \(2 different maths fit/) });
  });

  it('gives a refused reading back with its doubts, for its owner to confirm or correct (issue 25)', () => {
    const outcome = judgeReading(reading('Solve for n: 8n + 4 < 47', [{ at: 20, confidence: 0.87, alternatives: [{ text: '≤', confidence: 0.1 }, { text: '＜', confidence: 0.03 }] }]));
    expect(outcome).toMatchObject({ status: 'unreadable', reading: { text: 'Solve for n: 8n + 4 < 47', doubts: [expect.stringMatching(/^read unsure: "<" 0\.87/)] } });
  });

  it('gives no reading back when what was read is not one English problem (nothing to confirm)', () => {
    expect(judgeReading(reading('解方程 2x = 4'))).toMatchObject({ status: 'unreadable' });
    expect(judgeReading(reading('解方程 2x = 4'))).not.toHaveProperty('reading');
  });

  it('doubts a character whose alternatives are maths even when it is not ("÷" read as ":")', () => {
    const outcome = judgeReading(reading('Work out 100 : 10 - 26', [{ at: 13, confidence: 0.52, alternatives: [{ text: '÷', confidence: 0.28 }, { text: '+', confidence: 0.13 }, { text: '·', confidence: 0.03 }] }]));
    expect(outcome).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/":" 0\.52/) });
  });

  it('lets a doubted space or a full-width spelling stand: every reading of it is the same maths', () => {
    const outcome = judgeReading(
      reading('Evaluate 64 - 20', [
        { at: 11, confidence: 0.86, alternatives: [{ text: '', confidence: 0.14 }] },
        { at: 12, confidence: 0.9, alternatives: [{ text: '－', confidence: 0.09 }] },
      ]),
    );
    expect(outcome).toMatchObject({ status: 'read', reading: { text: 'Evaluate 64 - 20' } });
  });

  describe('an instruction word read unsure (issue 25: "f" of "Simplify" at 0.95 beside "i", "S" of "Solve" beside "5")', () => {
    it('reads a doubted letter of an instruction word as the word, when the reader listed the letter', () => {
      const simplify = reading('Simplify: 7y + 6y', [
        { at: 6, confidence: 0.954, alternatives: [{ text: 'i', confidence: 0.027 }], unlisted: 0.017, ownInk: true },
        { at: 9, confidence: 0.97, alternatives: [{ text: '', confidence: 0.03 }] },
      ]);
      expect(judgeReading(simplify)).toMatchObject({ status: 'read', reading: { text: 'Simplify: 7y + 6y' } });
      const simplity = reading('Simplity: 7y + 6y', [{ at: 6, confidence: 0.6, alternatives: [{ text: 'f', confidence: 0.38 }], ownInk: true }]);
      expect(judgeReading(simplity)).toMatchObject({ status: 'read', reading: { text: 'Simplify: 7y + 6y' } });
      const fiveOlve = reading('5olve for n: 2n - 39 ≥ 13', [{ at: 0, confidence: 0.6, alternatives: [{ text: 'S', confidence: 0.39 }], ownInk: true }]);
      expect(judgeReading(fiveOlve)).toMatchObject({ status: 'read', reading: { text: 'Solve for n: 2n - 39 ≥ 13' } });
    });

    it('leaves a letter the reader did not list, and a run beside maths, as read', () => {
      // "t" with no "f" listed: "simplity" asks for nothing the reader said.
      const unlisted = reading('Simplity: 7y + 6y', [{ at: 6, confidence: 0.6, alternatives: [{ text: 'l', confidence: 0.38 }], ownInk: true }]);
      expect(judgeReading(unlisted)).toMatchObject({ status: 'unreadable' });
      // "+tind" is maths, not a word of prose: its doubted "t" is the maths' to weigh.
      const besideMaths = reading('Evaluate 2+tind', [{ at: 11, confidence: 0.6, alternatives: [{ text: 'f', confidence: 0.38 }], ownInk: true }]);
      expect(judgeReading(besideMaths)).toMatchObject({ status: 'unreadable' });
    });
  });

  describe('the maths overruling the reader (issue 25: "11x - 37 < 18" was read "11α - 37 < 18")', () => {
    /** The "x" of "11x" read "c" at 0.72; the reader listed "r", nothing and "x" at 0.027 (only "x" parses), and left out readings up to `unlisted`. */
    const leftover = (unlisted: number | undefined): OcrReading =>
      reading('Solve for x: 11c - 37 < 18', [
        { at: 15, confidence: 0.72, alternatives: [{ text: 'r', confidence: 0.117 }, { text: '', confidence: 0.097 }, { text: 'x', confidence: 0.027 }], ownInk: true, ...(unlisted === undefined ? {} : { unlisted }) },
      ]);

    it('refuses a reading whose maths had to pick a leftover of the reader: a reading the reader never listed is about as likely', () => {
      const outcome = judgeReading(leftover(0.013));
      expect(outcome).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/would have to read "c" as "x" \(0\.027, a reading the reader did not list up to 0\.013\)/) });
    });

    it('without the reader saying what it left out, the maths picks the one reading that parses (what the doubt guards against)', () => {
      expect(judgeReading(leftover(undefined))).toMatchObject({ status: 'read', reading: { text: 'Solve for x: 11x - 37 < 18' } });
    });

    it('lets the maths pick a runner-up the reader gave a fair share ("÷" at 0.28 behind "0" at 0.70), nothing unlisted near it', () => {
      const fair = (unlisted: number): OcrReading => reading('Work out 27 0 3 - 8', [{ at: 12, confidence: 0.7, alternatives: [{ text: '÷', confidence: 0.28 }], unlisted, ownInk: true }]);
      expect(judgeReading(fair(0.003))).toMatchObject({ status: 'read', reading: { text: 'Work out 27 ÷ 3 - 8' } });
      expect(judgeReading(fair(0.015))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/would have to read "0" as "÷"/) });
    });

    it('does not hold the unlisted readings of a place against the reader\'s own reading there (its confidence weighs them)', () => {
      const outcome = judgeReading(reading('Solve for y: 5y - 4 = 2y + 11', [{ at: 16, confidence: 0.95, alternatives: [{ text: '－', confidence: 0.04 }], unlisted: 0.009 }]));
      expect(outcome).toMatchObject({ status: 'read' });
    });
  });

  it('refuses a space the reader left in doubt between two words when either way is other maths ("adecimal" keys other prose than "a decimal")', () => {
    const withDoubtedSpace = (text: string, after: number): OcrReading => {
      const read = reading(text);
      const line = read.lines[0]!;
      const nearMiss: OcrChar = { text: '', confidence: 0.5, alternatives: [{ text: ' ', confidence: 0.5 }], unlisted: 0 };
      return { ...read, lines: [{ ...line, chars: [...line.chars.slice(0, after), nearMiss, ...line.chars.slice(after)] }] };
    };
    expect(judgeReading(withDoubtedSpace('Convert 3/5 to adecimal', 16))).toMatchObject({ status: 'unreadable', reason: expect.stringContaining('" " 0.50') });
    // Where both ways are the same maths (maths-sig v8 reads the run-together "workout" as "work out"), the space changes nothing.
    expect(judgeReading(withDoubtedSpace('Workout 28 ÷ 7 - 29', 4))).toMatchObject({ status: 'read' });
    // Where one way is no maths ("2 8 ÷ 7" does not parse), the other stands.
    expect(judgeReading(withDoubtedSpace('Evaluate 28 ÷ 7 - 29', 10))).toMatchObject({ status: 'read' });
  });

  it('refuses a doubt whose readings do not cover its probability', () => {
    const outcome = judgeReading(reading('Solve 3x + 1 = 7', [{ at: 15, confidence: 0.6, alternatives: [{ text: '1', confidence: 0.2 }] }]));
    expect(outcome).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/read unsure: "7" 0\.60/) });
  });

  it('refuses ink that no read line takes in (a root sign the detector left out) and ink enclosing other glyphs', () => {
    const root: OcrBox = { x0: 300, y0: 0, x1: 420, y1: 120 };
    const outside = judgeReading(reading('Evaluate 49 - 4', [], [{ x0: 10, y0: 10, x1: 30, y1: 50 }, { x0: 300, y0: 70, x1: 340, y1: 130 }]));
    expect(outside).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/ink at x 300–340, y 70–130 lies outside every line read/) });
    const enclosing = judgeReading(reading('Evaluate 49 - 4', [], [root, { x0: 340, y0: 20, x1: 370, y1: 55 }, { x0: 375, y0: 20, x1: 405, y1: 55 }]));
    expect(enclosing).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/encloses other glyphs/) });
  });

  it('places a root from its ink: the bar over the glyphs in its columns is the radicand, the sign read as "V" before them', () => {
    // "Evaluate V49 - 4": "V" at x 180–196, "4" and "9" at 200–236; the radical's stroke from the tick's
    // foot to the bar's end spans x 180–240, its bar just above the digits, its foot on their baseline.
    const digits: OcrBox[] = [{ x0: 200, y0: 10, x1: 216, y1: 50 }, { x0: 220, y0: 10, x1: 236, y1: 50 }];
    const radical: OcrBox = { x0: 180, y0: 2, x1: 240, y1: 52 };
    expect(judgeReading(reading('Evaluate V49 - 4', [], [radical, ...digits]))).toMatchObject({ status: 'read', reading: { text: 'Evaluate √(49) - 4' } });
    // The bar reaching over the "- 4" too is another root: √(49 - 4).
    const longer: OcrBox = { ...radical, x1: 320 };
    expect(judgeReading(reading('Evaluate V49 - 4', [], [longer, ...digits, { x0: 260, y0: 28, x1: 276, y1: 31 }, { x0: 300, y0: 10, x1: 316, y1: 50 }]))).toMatchObject({ status: 'read', reading: { text: 'Evaluate √(49 - 4)' } });
    // The sign run into the word before it: a space lost (the maths' intent with it), refused.
    const glued = { ...radical, x0: 160, x1: 220 };
    expect(judgeReading(reading('EvaluateV49 - 4', [], [glued, { x0: 180, y0: 10, x1: 196, y1: 50 }, { x0: 200, y0: 10, x1: 216, y1: 50 }]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/a word run into a root sign/) });
    // The sign read as a digit, or ink that encloses glyphs but is no radical (a frame: its foot far below them), is not placed.
    expect(judgeReading(reading('Evaluate 749 - 4', [], [radical, ...digits]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/encloses other glyphs/) });
    const frame: OcrBox = { x0: 170, y0: 2, x1: 250, y1: 80 };
    expect(judgeReading(reading('Evaluate V49 - 4', [], [frame, ...digits]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/encloses other glyphs/) });
  });

  it('places a root from its ink when the recogniser read its sign unsure or as nothing (issue 25: "V" 0.19, "" with "<" 0.15)', () => {
    // "Evaluate √49 - 4" with the sign read as nothing: a near miss ("" 0.66, "<" 0.15) in the gap before
    // the "4", the word space (x 160–176) over the sign's tick. The radical spans x 160–240.
    const digits: OcrBox[] = [{ x0: 180, y0: 10, x1: 196, y1: 50 }, { x0: 200, y0: 10, x1: 216, y1: 50 }];
    const radical: OcrBox = { x0: 160, y0: 2, x1: 220, y1: 52 };
    const read = reading('Evaluate 49 - 4', [], [radical, ...digits]);
    const line = read.lines[0]!;
    const nearMiss: OcrChar = { text: '', confidence: 0.66, alternatives: [{ text: '<', confidence: 0.15 }], unlisted: 0.05 };
    const signReadAsNothing = { ...read, lines: [{ ...line, chars: [...line.chars.slice(0, 9), nearMiss, ...line.chars.slice(9)] }] };
    expect(judgeReading(signReadAsNothing)).toMatchObject({ status: 'read', reading: { text: 'Evaluate √(49) - 4' } });
    // The recogniser's "4" took the radical's whole blob for its box (its columns held the blob's centre):
    // the glyph under the bar that no other character holds is its own, so it does not stand tall (the
    // line 20 px lower, the radical 1.6 characters tall from its bar to its foot).
    const lower = (b: OcrBox): OcrBox => ({ ...b, y0: b.y0 + 20, y1: b.y1 + 20 });
    const tallRadical: OcrBox = { x0: 160, y0: 8, x1: 220, y1: 72 };
    const tookBlob = { ...line, chars: line.chars.map((c, i) => ({ ...c, box: i === 9 ? tallRadical : lower(c.box!) })) };
    expect(judgeReading({ ...read, lines: [tookBlob], ink: [tallRadical, ...digits.map(lower)] })).toMatchObject({ status: 'read', reading: { text: 'Evaluate √(49) - 4' } });
  });

  it('places a root whose rising stroke was lost (a shrunk copy): the tick read as a root sign, its bar apart above the radicand', () => {
    // "Evaluate V49 - 4": the tick at x 180–196, the bar at x 200–238 over the "4" and "9", 2 px thin.
    const tick: OcrBox = { x0: 180, y0: 20, x1: 196, y1: 52 };
    const bar: OcrBox = { x0: 200, y0: 4, x1: 238, y1: 6 };
    const digits: OcrBox[] = [{ x0: 200, y0: 10, x1: 216, y1: 50 }, { x0: 220, y0: 10, x1: 236, y1: 50 }];
    expect(judgeReading(reading('Evaluate V49 - 4', [], [tick, bar, ...digits]))).toMatchObject({ status: 'read', reading: { text: 'Evaluate √(49) - 4' } });
    // Glyphs stacked over the bar make it a fraction's, not a root's: the "V" stays a letter before a digit.
    const numerator: OcrBox = { x0: 205, y0: -40, x1: 230, y1: 0 };
    expect(judgeReading(reading('Evaluate V49 - 4', [], [tick, bar, ...digits, numerator]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/"V4": a digit right after a letter/) });
    // A tick read as nothing but a near miss: two marks apart are a root only when the recogniser reads one there.
    expect(judgeReading(reading('Evaluate 749 - 4', [{ at: 9, confidence: 0.3, alternatives: [{ text: 'V', confidence: 0.3 }] }], [tick, bar, ...digits]))).toMatchObject({ status: 'unreadable' });
  });

  it('does not take a small index raised in the crook of the radical ("∛8") for part of the radicand', () => {
    // "3" raised at x 180–190 over the tick, "8" under the bar: the sign read as nothing, so only the ink could place it.
    const ink: OcrBox[] = [{ x0: 160, y0: 2, x1: 225, y1: 52 }, { x0: 180, y0: 12, x1: 190, y1: 30 }, { x0: 200, y0: 10, x1: 216, y1: 50 }];
    expect(judgeReading(reading('Evaluate 38 - 4', [], ink))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/encloses other glyphs/) });
  });

  it('refuses maths the picture\'s edge cuts through ("8² + 3³" cropped through its "³"), and a cut letter read as nothing, not prose it cuts', () => {
    const cutExponent = { ...reading('Evaluate 8 + 3', [], [{ x0: 278, y0: 4, x1: 290, y1: 22 }]), width: 290 };
    expect(judgeReading(cutExponent)).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/the picture's right edge cuts through ink beside "3"/) });
    const cutProse = judgeReading(reading('Solve 2x = 4', [], [{ x0: 0, y0: 10, x1: 12, y1: 50 }]));
    expect(cutProse).toMatchObject({ status: 'read', reading: { text: 'Solve 2x = 4' } });
    // The picture's edge cut an "E" down to its arms, read as nothing: "valuate" is other words, and other maths for the signature.
    const read = reading('valuate 12 - 4', [], [{ x0: 0, y0: 10, x1: 15, y1: 14 }, { x0: 0, y0: 46, x1: 15, y1: 50 }]);
    const shifted = { ...read, lines: read.lines.map((l) => ({ ...l, chars: l.chars.map((c) => ({ ...c, box: { ...c.box!, x0: c.box!.x0 + 30, x1: c.box!.x1 + 30 } })) })) };
    expect(judgeReading(shifted)).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/left edge cuts through a glyph no character was read for, beside "v"/) });
  });

  describe('a reader of lines without characters (Mathpix: LaTeX written as plain maths, one confidence a line)', () => {
    /** Lines as Mathpix gives them: no characters, no boxes of its own, maths lines marked latex. */
    const mathpix = (lines: readonly { text: string; confidence: number; latex?: boolean; unread?: string }[]): OcrReading => ({
      reader: 'mathpix/v3-text',
      local: false,
      width: 900,
      height: 300,
      lines: lines.map((l, i) => ({ ...l, box: { x0: 0, y0: 100 * i, x1: 900, y1: 100 * i + 80 }, chars: [] })),
    });

    it('reads a sure line, its maths tokens carrying the line confidence', () => {
      const outcome = judgeReading(mathpix([{ text: 'Solve for y: 5y-4=2y+11', confidence: 0.995, latex: true }]));
      expect(outcome).toMatchObject({ status: 'read', reading: { text: 'Solve for y: 5y-4=2y+11', reader: 'mathpix/v3-text' } });
      if (outcome.status === 'read') expect(outcome.reading.confidence).toBeCloseTo(0.995);
    });

    it("takes a root's reach from its LaTeX (√(36+31)), which a line reader cannot see", () => {
      expect(judgeReading(mathpix([{ text: 'Evaluate √(36+31)', confidence: 0.99, latex: true }]))).toMatchObject({ status: 'read' });
      expect(judgeReading(mathpix([{ text: 'Evaluate √36+31', confidence: 0.99 }]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/a root sign/) });
    });

    it('refuses a line read unsure, naming its characters', () => {
      expect(judgeReading(mathpix([{ text: '5y-4=2y+11', confidence: 0.6, latex: true }]))).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/read unsure: "5" 0\.60/) });
    });

    it('refuses a line holding LaTeX that could not be written as plain maths, naming it', () => {
      const outcome = judgeReading(mathpix([{ text: 'Find \\int_{0}^{1} x dx', confidence: 0.99, latex: true, unread: 'the LaTeX command \\int' }]));
      expect(outcome).toMatchObject({ status: 'unreadable', reason: expect.stringContaining('the reader read the LaTeX command \\int on the line') });
    });
  });
});

describe('readProblem', () => {
  /** A reader that reads one line `lineHeight` px tall at any size, scaled with the page. */
  const recordingReader = (lineHeight: number): ReturnType<typeof scaledLineReader> => scaledLineReader(lineHeight, () => ({ text: 'Solve 2x = 6' }));
  const page = (): Promise<NormalisedImage> => blankPage();

  it('reads print of ordinary size once, as it is: enlarging it only multiplies the detector\'s work', async () => {
    const reader = recordingReader(40);
    expect(await readProblem(await page(), 0, reader)).toMatchObject({ status: 'read' });
    expect(reader.widths).toEqual([200]);
  });

  it('reads small print again enlarged until its lines reach the height it reads well at', async () => {
    const reader = recordingReader(16);
    await readProblem(await page(), 0, reader, { ...DEFAULT_READING, minLineHeight: 32 });
    expect(reader.widths).toEqual([200, 400]);
  });

  it('does not read small print again when the reader enlarged it itself, from its text boxes, before recognising', async () => {
    const inner = recordingReader(16);
    const options: OcrReadOptions[] = [];
    const enlarging: OcrReader = {
      ...inner,
      async read(image, given = {}) {
        options.push(given);
        const read = await inner.read(image, given);
        return { ...read, enlarged: 2, lines: read.lines.map((l) => ({ ...l, box: { ...l.box, y1: l.box.y0 + 32 } })) };
      },
    };
    expect(await readProblem(await page(), 0, enlarging, { ...DEFAULT_READING, minLineHeight: 32 })).toMatchObject({ status: 'read' });
    expect(inner.widths).toEqual([200]);
    expect(options[0]).toMatchObject({ minLineHeight: 32, secondLook: 'on-request' });
  });

  describe('the second look (issue 25: paid only where it can change the outcome)', () => {
    const doubted = (text: string, at: number, confidence: number, alternatives: readonly OcrAlternative[]): OcrReading => reading(text, [{ at, confidence, alternatives, ownInk: true }]);
    function deferringReader(first: OcrReading, looked: OcrReading): OcrReader & { readonly asked: { worth: boolean[] }[] } {
      const asked: { worth: boolean[] }[] = [];
      return {
        reader: 'test',
        local: true,
        asked,
        read: () =>
          Promise.resolve({
            ...first,
            lookAgain: (options) => {
              const chars = first.lines[0]!.chars;
              asked.push({ worth: chars.map((_, i) => options.worth?.(chars, i) ?? true) });
              return Promise.resolve(looked);
            },
          }),
        close: () => Promise.resolve(),
      };
    }

    it('is not taken when the reading is accepted as read', async () => {
      // A doubted space after the instruction: no reading of it changes the maths.
      const reader = deferringReader(doubted('Solve 2x = 6', 5, 0.9, [{ text: '', confidence: 0.09 }]), reading('Solve 2x = 6'));
      expect(await readProblem(await page(), 0, reader)).toMatchObject({ status: 'read' });
      expect(reader.asked).toEqual([]);
    });

    it('comes after the inline reading of a row with a stacked fraction (a look at glyphs never settled one: the fraction is the doubt)', async () => {
      // A 200 × 100 page: "Add" 30 px tall on a baseline at 60, and "1 over 2" stacked at x 100–130.
      const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });
      const letters = [box(10, 30, 30, 60), box(32, 30, 50, 60), box(52, 30, 70, 60)];
      const fraction = [box(108, 18, 122, 40), box(100, 44, 130, 46), box(108, 50, 122, 72)];
      const rgb = Buffer.alloc(200 * 100 * 3, 255);
      for (const b of [...letters, ...fraction]) for (let y = b.y0; y < b.y1; y += 1) rgb.fill(20, (y * 200 + b.x0) * 3, (y * 200 + b.x1) * 3);
      const image: NormalisedImage = { sourceType: 'png', width: 200, height: 100, rgb, png: await sharp(rgb, { raw: { width: 200, height: 100, channels: 3 } }).png().toBuffer() };
      const calls: string[] = [];
      const text = 'Add 1 - 2';
      const chars: OcrChar[] = [...text].map((c, i) => ({ text: c, confidence: i === 6 ? 0.6 : 0.999, ...(i === 6 ? { alternatives: [{ text: '+', confidence: 0.39 }] } : {}), box: box(10 + 20 * i, 30, 26 + 20 * i, 60) }));
      const reader: OcrReader = {
        reader: 'test',
        local: true,
        async read(png) {
          const { width = 0, height = 0 } = await sharp(png).metadata();
          calls.push(calls.length === 0 ? 'read' : 'inline read');
          return {
            reader: 'test',
            local: true,
            width,
            height,
            lines: [{ text, confidence: 0.6, box: box(10, 18, 190, 72), chars }],
            ink: [...letters, ...fraction],
            lookAgain: () => {
              calls.push('second look');
              return Promise.resolve({ reader: 'test', local: true, width, height, lines: [{ text, confidence: 0.6, box: box(10, 18, 190, 72), chars }] });
            },
          };
        },
        close: () => Promise.resolve(),
      };
      // Refused whichever way: the inline read here is not bracketable (the fake reads the same line again).
      expect(await readProblem(image, 0, reader)).toMatchObject({ status: 'unreadable' });
      // (then the page is read so again at a second scale, `second-scale.spec.ts`.)
      expect(calls.slice(0, 3)).toEqual(['read', 'inline read', 'second look']);
    });

    it('is taken when the reading would be refused, only at places that may change the maths, and its reading judged', async () => {
      // "6" or "8": other maths, refused as read; the look reads it a sure "6".
      const reader = deferringReader(doubted('Solve 2x = 6', 11, 0.6, [{ text: '8', confidence: 0.39 }]), reading('Solve 2x = 6'));
      expect(await readProblem(await page(), 0, reader)).toMatchObject({ status: 'read', reading: { text: 'Solve 2x = 6' } });
      expect(reader.asked).toHaveLength(1);
      // The digit may change the maths; the space after the instruction may not.
      expect(reader.asked[0]!.worth[11]).toBe(true);
      expect(reader.asked[0]!.worth[5]).toBe(false);
    });
  });
});
