import type { OcrAlternative, OcrBox, OcrChar } from '../port.js';
import { inkBlobs, type Joined, type RgbRaster, resampleRegion } from '../raster.js';
import { readCrossedStrokes } from './crossed-strokes.js';
import { readRings } from './ring-glyphs.js';
import type { TensorData } from './onnx-worker-pool.js';

/** The recogniser reads lines scaled to this height. */
export const LINE_HEIGHT = 48;
/** PaddleOCR pads narrower lines to this width. */
const MIN_LINE_WIDTH = 320;

export interface RecognitionInput extends TensorData {
  /** Recogniser columns per image pixel. */
  readonly scale: number;
  /** Columns holding the line (the rest is padding). */
  readonly contentWidth: number;
}

/** A line's crop, scaled to 48 px high (aspect kept), normalised to [-1, 1], BGR planes, padded to at least 320 columns. */
export function recognitionInput(image: RgbRaster, box: OcrBox): RecognitionInput {
  const bw = box.x1 - box.x0;
  const bh = box.y1 - box.y0;
  const scale = LINE_HEIGHT / bh;
  const contentWidth = Math.max(1, Math.ceil(bw * scale));
  const width = Math.max(MIN_LINE_WIDTH, Math.ceil(contentWidth / 8) * 8);
  const plane = LINE_HEIGHT * width;
  const data = new Float32Array(3 * plane);
  resampleRegion(image, { x0: box.x0, y0: box.y0, width: bw, height: bh }, contentWidth, LINE_HEIGHT, (x, y, r, g, b) => {
    const i = y * width + x;
    data[i] = b / 127.5 - 1;
    data[plane + i] = g / 127.5 - 1;
    data[2 * plane + i] = r / 127.5 - 1;
  });
  return { data, dims: [1, 3, LINE_HEIGHT, width], scale, contentWidth };
}

export interface DecodedLine {
  readonly text: string;
  readonly chars: readonly OcrChar[];
  readonly inkBoxes: readonly OcrBox[];
}

/** Classes a step gives at least this probability are kept as a character's alternatives. */
const ALTERNATIVE_FLOOR = 0.02;
/** A blank step giving another character at least this probability is a place where a character may have been lost. */
const NEAR_MISS = 0.1;

interface Peak {
  index: number;
  step: number;
  lastStep: number;
  probability: number;
  /** The step where this character was surest: its alternatives are that step's. */
  bestStep: number;
}

/**
 * Greedy CTC decoding: the most probable class per step, repeats collapsed, blanks (class 0) dropped;
 * class k is the dictionary's (k−1)th entry, the last class a space. Each character keeps its step's
 * probability and the other classes that step weighed, and is placed at its steps' columns, its rows
 * taken from the ink there. A blank step that nearly read a character other than its neighbours' is
 * kept as a char with text '' (the character its alternative): a character the greedy path may have lost.
 */
export function decodeLine(output: TensorData, dictionary: readonly string[], input: RecognitionInput, image: RgbRaster, box: OcrBox): DecodedLine {
  const steps = output.dims[1] ?? 0;
  const classes = output.dims[2] ?? 0;
  const columnsPerStep = (input.dims[3] ?? 0) / Math.max(1, steps);
  const textOf = (k: number): string => (k === 0 ? '' : k === classes - 1 ? ' ' : (dictionary[k - 1] ?? ''));
  const best: { index: number; p: number; runnerUp: number; runnerUpP: number }[] = [];
  for (let t = 0; t < steps; t += 1) {
    const row = t * classes;
    let top = { index: 0, p: -1 };
    let second = { index: 0, p: -1 };
    for (let k = 0; k < classes; k += 1) {
      const p = output.data[row + k]!;
      if (p > top.p) {
        second = top;
        top = { index: k, p };
      } else if (p > second.p) second = { index: k, p };
    }
    best.push({ index: top.index, p: top.p, runnerUp: second.index, runnerUpP: second.p });
  }
  /** Step t's classes other than `except` at or above the floor, most probable first, and the likeliest class left out. */
  const alternativesAt = (t: number, except: number): { alternatives: OcrAlternative[]; unlisted: number } => {
    const row = t * classes;
    const found: OcrAlternative[] = [];
    let unlisted = 0;
    for (let k = 0; k < classes; k += 1) {
      const p = output.data[row + k]!;
      if (k === except) continue;
      if (p >= ALTERNATIVE_FLOOR) found.push({ text: textOf(k), confidence: p });
      else unlisted = Math.max(unlisted, p);
    }
    return { alternatives: found.sort((a, b) => b.confidence - a.confidence), unlisted };
  };
  /**
   * The likeliest class of blank step t a near miss leaves out: not the blank, not the character it nearly
   * read, and not what a blank step weighs without it being a lost character (a neighbour's class, a space).
   */
  const unlistedBeside = (t: number, notLost: readonly number[]): number => {
    const row = t * classes;
    let unlisted = 0;
    for (let k = 1; k < classes - 1; k += 1) if (!notLost.includes(k)) unlisted = Math.max(unlisted, output.data[row + k]!);
    return unlisted;
  };
  const peaks: Peak[] = [];
  let previous = 0;
  for (let t = 0; t < steps; t += 1) {
    const { index, p } = best[t]!;
    const last = peaks.at(-1);
    if (index !== 0 && index === previous && last !== undefined) {
      last.lastStep = t;
      if (p > last.probability) {
        last.probability = p;
        last.bestStep = t;
      }
    } else if (index !== 0) peaks.push({ index, step: t, lastStep: t, probability: p, bestStep: t });
    previous = index;
  }
  const toImageX = (column: number): number => box.x0 + column / input.scale;
  const { blobs: ink, joined } = lineInk(image, box);
  const chars: OcrChar[] = [];
  /** Each character's likeliest space over its steps and the blank ones after it: the recogniser's own weight for a word gap there. */
  const spaceWeighed = new Map<OcrChar, number>();
  for (const [i, peak] of peaks.entries()) {
    // A character's columns: halfway to its neighbours' steps (CTC places each near its centre).
    const before = peaks[i - 1];
    const after = peaks[i + 1];
    const left = before === undefined ? Math.max(0, peak.step - 1) : (before.lastStep + peak.step + 1) / 2;
    const right = after === undefined ? Math.min(steps, peak.lastStep + 2) : (peak.lastStep + after.step + 1) / 2;
    const x0 = Math.max(box.x0, Math.floor(toImageX(left * columnsPerStep)));
    const x1 = Math.min(box.x1, Math.ceil(toImageX(right * columnsPerStep)));
    const own = inkOf(ink, x0, Math.max(x0 + 1, x1), joined);
    const { alternatives, unlisted } = alternativesAt(peak.bestStep, peak.index);
    const char: OcrChar = { text: textOf(peak.index), confidence: peak.probability, box: own ?? { x0, y0: box.y0, x1: Math.max(x0 + 1, x1), y1: box.y1 }, alternatives, unlisted, ownInk: own !== undefined };
    chars.push(char);
    let space = 0;
    for (let t = peak.step; t < (after?.step ?? steps); t += 1) space = Math.max(space, output.data[t * classes + classes - 1]!);
    spaceWeighed.set(char, space);
    // Blank steps up to the next character that nearly read a character other than the two around them.
    const nearMisses = new Map<number, OcrAlternative & { blank: number; unlisted: number }>();
    for (let t = peak.lastStep + 1; t < (after?.step ?? steps); t += 1) {
      const step = best[t]!;
      // Spaces are the ink's business (word gaps), not lost characters.
      if (step.index !== 0 || step.runnerUp === classes - 1 || step.runnerUp === peak.index || step.runnerUp === after?.index || step.runnerUpP < NEAR_MISS) continue;
      const seen = nearMisses.get(step.runnerUp);
      if (seen === undefined || step.runnerUpP > seen.confidence) nearMisses.set(step.runnerUp, { text: textOf(step.runnerUp), confidence: step.runnerUpP, blank: step.p, unlisted: unlistedBeside(t, [step.runnerUp, peak.index, after?.index ?? 0]) });
    }
    for (const miss of nearMisses.values()) chars.push({ text: '', confidence: miss.blank, alternatives: [{ text: miss.text, confidence: miss.confidence }], unlisted: miss.unlisted });
  }
  // Crossed strokes are sized against characters with ink of their own (a box of columns alone is as tall as the line).
  const inkHeight = lineCharHeight(chars.filter((c) => c.ownInk === true));
  const crossed = inkHeight === undefined ? chars : readCrossedStrokes(chars, ink, image, inkHeight);
  const shaped = readRings(crossed, image);
  // A character read again from its ink keeps the recogniser's weight for a space after it.
  for (const [i, c] of shaped.entries()) if (c !== crossed[i]) spaceWeighed.set(c, spaceWeighed.get(crossed[i]!) ?? 0);
  const spaced = withGapSpaces(shaped, ink, spaceWeighed);
  return { text: spaced.map((c) => c.text).join(''), chars: spaced, inkBoxes: ink };
}

/**
 * The line's ink, each glyph whole: blobs measured in the line's rows widened by its height each side,
 * those with most of their columns in the line's box kept. The detector's box may cut a glyph at the
 * line's ends (issue 25: the "C" of "Calculate" cut 4 px into its bowl, whose ink inside the box was two
 * arcs one above the other, a "stacked fraction"); a glyph of the next box that reaches into this one is not this line's.
 */
function lineInk(image: RgbRaster, box: OcrBox): { blobs: OcrBox[]; joined: Joined } {
  const reach = box.y1 - box.y0;
  const widened = { x0: Math.max(0, box.x0 - reach), y0: box.y0, x1: Math.min(image.width, box.x1 + reach), y1: box.y1 };
  const { blobs, joined } = inkBlobs(image, widened);
  const inside = (b: OcrBox): number => Math.max(0, Math.min(b.x1, box.x1) - Math.max(b.x0, box.x0));
  return { blobs: blobs.filter((b) => inside(b) >= 0.5 * (b.x1 - b.x0)), joined };
}

/** An ink gap wider than this many character heights is a word space, whether the recogniser emitted one or not. */
const WORD_GAP = 0.45;
/**
 * A narrower gap, yet wider than this many character heights and `SPACING_OUTLIER` times the line's usual
 * gap between characters, may be a word space shrunk by scaling (issue 25, measured: a 40 % copy of
 * "Work out 28 ÷ 7" reads "Workout28": the word gap 5 px, the letters' 2–4 px, a character 12 px high).
 */
const UNSURE_GAP = 0.25;
const SPACING_OUTLIER = 1.5;
/**
 * ... and where the recogniser itself gave a space at least this much after the first character
 * (measured: 0.15–0.28 at the lost space of the shrunk "Work out", under 0.0001 at letter pairs of
 * clean originals whose gaps are as wide, a monospaced "l" or a serif "lu").
 */
const SPACE_WEIGHED = 0.01;
/**
 * Only between letters: there a lost space joins words (another prose key, or an unknown run into a
 * word); between digits and signs the maths' own spacing is read by `WORD_GAP` alone (measured: doubting
 * gaps there refused 10 of 200 clean originals, "7 ²" for "7²").
 */
const LETTER = /^\p{L}$/u;
/**
 * A space where the ink shows a word gap (`WORD_GAP`) is read from the ink, not by the recogniser: it is
 * sure. Its neighbours' doubts are theirs, weighed on them; a space that took their confidence, with no
 * reading but itself, refused readings whose doubted neighbours the maths had settled (issue 25, seed 2511:
 * "7y − 36" read with "−" at 0.82, its "－"/"—" spellings the rest, refused for the space after it).
 */
const INK_GAP_SPACE = 1;
/** A space the ink leaves in doubt is as likely there as not: the reading is weighed both ways. */
const UNSURE_SPACE = 0.5;

/**
 * PP-OCRv4's Chinese-trained recogniser drops spaces between English words in scaled or tilted copies
 * (measured: "a rectangle has" read "arectanglehas"); the ink shows them, so a blank between two
 * characters wider than a word space gets one. The blank is measured on the line's ink, not on the two
 * characters' boxes: a character's box is one blob of its ink, and a glyph broken in two ("u" in a
 * shrunk copy) leaves its other half between the boxes, which is no gap. A blank the ink leaves in doubt
 * (`UNSURE_GAP`) where the recogniser weighed a space (`spaceWeighed`, `SPACE_WEIGHED`) is a near miss of a space (text '', the space its alternative): the judge weighs the
 * reading with and without it, so words it may join ("workout" for "work out", another prose key) refuse
 * rather than silently read one way.
 */
export function withGapSpaces(chars: readonly OcrChar[], ink: readonly OcrBox[], spaceWeighed: ReadonlyMap<OcrChar, number> = new Map()): OcrChar[] {
  const charHeight = lineCharHeight(chars);
  if (charHeight === undefined) return [...chars];
  const read = chars.filter((c) => c.text !== '');
  const blanks = read.flatMap((c, i) => {
    const next = read[i + 1];
    return next === undefined || c.text === ' ' || next.text === ' ' || c.box === undefined || next.box === undefined ? [] : [widestBlank(ink, c.box.x1, next.box.x0)];
  });
  const usual = [...blanks].sort((a, b) => a - b)[Math.floor(blanks.length / 2)] ?? 0;
  const out: OcrChar[] = [];
  let previous: OcrChar | undefined;
  for (const c of chars) {
    if (c.text === '') {
      out.push(c);
      continue;
    }
    if (previous !== undefined && previous.text !== ' ' && c.text !== ' ' && previous.box !== undefined && c.box !== undefined) {
      const blank = widestBlank(ink, previous.box.x1, c.box.x0);
      // The ink shows the gap: the space is as sure as the ink is (`INK_GAP_SPACE`), whatever its neighbours' doubts.
      if (blank > WORD_GAP * charHeight) out.push({ text: ' ', confidence: INK_GAP_SPACE });
      else if (LETTER.test(previous.text) && LETTER.test(c.text) && blank > UNSURE_GAP * charHeight && blank > SPACING_OUTLIER * usual && (spaceWeighed.get(previous) ?? 0) >= SPACE_WEIGHED) {
        out.push({ text: '', confidence: UNSURE_SPACE, alternatives: [{ text: ' ', confidence: UNSURE_SPACE }], unlisted: 0 });
      }
    }
    out.push(c);
    previous = c;
  }
  return out;
}

/** The line's character height: the upper quartile of its digits' and letters' ink heights (capitals, digits and ascenders). */
function lineCharHeight(chars: readonly OcrChar[]): number | undefined {
  const heights = chars.filter((c) => c.box !== undefined && /^[0-9A-Za-z]$/.test(c.text)).map((c) => c.box!.y1 - c.box!.y0).sort((a, b) => a - b);
  return heights[Math.floor(heights.length * 0.75)];
}

/** The widest run of columns in [x0, x1) that no ink blob covers. */
function widestBlank(ink: readonly OcrBox[], x0: number, x1: number): number {
  let widest = 0;
  let from = x0;
  for (const blob of [...ink].filter((b) => b.x1 > x0 && b.x0 < x1).sort((a, b) => a.x0 - b.x0)) {
    widest = Math.max(widest, blob.x0 - from);
    from = Math.max(from, blob.x1);
  }
  return Math.max(widest, x1 - from);
}

/**
 * The character's own ink: the blob centred in columns [x0, x1) nearest their middle, with the blobs
 * there that share its columns (an "i"'s dot, "="'s bars) or are pieces of the same glyph (`joined`,
 * beside it in the same rows); undefined when no blob is centred there.
 */
function inkOf(components: readonly OcrBox[], x0: number, x1: number, joined: Joined = () => false): OcrBox | undefined {
  const middle = (x0 + x1) / 2;
  const centre = (c: OcrBox): number => (c.x0 + c.x1) / 2;
  const inBand = components.filter((c) => centre(c) >= x0 && centre(c) < x1);
  if (inBand.length === 0) return undefined;
  const own = inBand.reduce((best, c) => (Math.abs(centre(c) - middle) < Math.abs(centre(best) - middle) ? c : best));
  const sharesColumns = (c: OcrBox): boolean => Math.min(c.x1, own.x1) - Math.max(c.x0, own.x0) >= 0.5 * Math.min(c.x1 - c.x0, own.x1 - own.x0);
  const sharesRows = (c: OcrBox): boolean => Math.min(c.y1, own.y1) - Math.max(c.y0, own.y0) >= 0.5 * Math.min(c.y1 - c.y0, own.y1 - own.y0);
  return inBand.filter((c) => sharesColumns(c) || (sharesRows(c) && joined(c, own))).reduce((u, c) => ({ x0: Math.min(u.x0, c.x0), y0: Math.min(u.y0, c.y0), x1: Math.max(u.x1, c.x1), y1: Math.max(u.y1, c.y1) }));
}
