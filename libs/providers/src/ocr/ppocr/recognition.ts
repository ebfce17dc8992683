import type { OcrBox, OcrChar } from '../port.js';
import { lumaAt, type RgbRaster, resampleRegion } from '../raster.js';
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

/**
 * Greedy CTC decoding: the most probable class per step, repeats collapsed, blanks (class 0) dropped;
 * class k is the dictionary's (k−1)th entry, the last class a space. Each character keeps its step's
 * probability and is placed at its steps' columns, its rows taken from the ink there.
 */
export function decodeLine(output: TensorData, dictionary: readonly string[], input: RecognitionInput, image: RgbRaster, box: OcrBox): DecodedLine {
  const steps = output.dims[1] ?? 0;
  const classes = output.dims[2] ?? 0;
  const columnsPerStep = (input.dims[3] ?? 0) / Math.max(1, steps);
  const peaks: { index: number; step: number; lastStep: number; probability: number }[] = [];
  let previous = 0;
  for (let t = 0; t < steps; t += 1) {
    let best = 0;
    let bestP = -1;
    const row = t * classes;
    for (let k = 0; k < classes; k += 1) {
      const p = output.data[row + k]!;
      if (p > bestP) {
        bestP = p;
        best = k;
      }
    }
    const last = peaks.at(-1);
    if (best !== 0 && best === previous && last !== undefined) {
      last.lastStep = t;
      last.probability = Math.max(last.probability, bestP);
    } else if (best !== 0) peaks.push({ index: best, step: t, lastStep: t, probability: bestP });
    previous = best;
  }
  const toImageX = (column: number): number => box.x0 + column / input.scale;
  const ink = inkComponents(image, box);
  const chars: OcrChar[] = peaks.map((peak, i) => {
    const text = peak.index === classes - 1 ? ' ' : (dictionary[peak.index - 1] ?? '');
    // A character's columns: halfway to its neighbours' steps (CTC places each near its centre).
    const before = peaks[i - 1];
    const after = peaks[i + 1];
    const left = before === undefined ? Math.max(0, peak.step - 1) : (before.lastStep + peak.step + 1) / 2;
    const right = after === undefined ? Math.min(steps, peak.lastStep + 2) : (peak.lastStep + after.step + 1) / 2;
    const x0 = Math.max(box.x0, Math.floor(toImageX(left * columnsPerStep)));
    const x1 = Math.min(box.x1, Math.ceil(toImageX(right * columnsPerStep)));
    return { text, confidence: peak.probability, box: inkOf(ink, x0, Math.max(x0 + 1, x1)) ?? { x0, y0: box.y0, x1: Math.max(x0 + 1, x1), y1: box.y1 } };
  });
  const spaced = withGapSpaces(chars);
  return { text: spaced.map((c) => c.text).join(''), chars: spaced, inkBoxes: ink };
}

/** An ink gap wider than this many character heights is a word space, whether the recogniser emitted one or not. */
const WORD_GAP = 0.45;

/**
 * PP-OCRv4's Chinese-trained recogniser drops spaces between English words in scaled or tilted copies
 * (measured: "a rectangle has" read "arectanglehas"); the ink shows them, so a gap wider than a word
 * space gets one.
 */
function withGapSpaces(chars: readonly OcrChar[]): OcrChar[] {
  const heights = chars.filter((c) => c.box !== undefined && /^[0-9A-Za-z]$/.test(c.text)).map((c) => c.box!.y1 - c.box!.y0).sort((a, b) => a - b);
  const charHeight = heights[Math.floor(heights.length * 0.75)];
  if (charHeight === undefined) return [...chars];
  const out: OcrChar[] = [];
  for (const [i, c] of chars.entries()) {
    const previous = chars[i - 1];
    if (previous !== undefined && previous.text !== ' ' && c.text !== ' ' && previous.box !== undefined && c.box !== undefined && c.box.x0 - previous.box.x1 > WORD_GAP * charHeight) {
      out.push({ text: ' ', confidence: Math.min(previous.confidence, c.confidence) });
    }
    out.push(c);
  }
  return out;
}

/**
 * The character's own ink: the blob centred in columns [x0, x1) nearest their middle, with the blobs
 * there that share its columns (an "i"'s dot, "="'s bars); undefined when no blob is centred there.
 */
function inkOf(components: readonly OcrBox[], x0: number, x1: number): OcrBox | undefined {
  const middle = (x0 + x1) / 2;
  const centre = (c: OcrBox): number => (c.x0 + c.x1) / 2;
  const inBand = components.filter((c) => centre(c) >= x0 && centre(c) < x1);
  if (inBand.length === 0) return undefined;
  const own = inBand.reduce((best, c) => (Math.abs(centre(c) - middle) < Math.abs(centre(best) - middle) ? c : best));
  const sharesColumns = (c: OcrBox): boolean => Math.min(c.x1, own.x1) - Math.max(c.x0, own.x0) >= 0.5 * Math.min(c.x1 - c.x0, own.x1 - own.x0);
  return inBand.filter(sharesColumns).reduce((u, c) => ({ x0: Math.min(u.x0, c.x0), y0: Math.min(u.y0, c.y0), x1: Math.max(u.x1, c.x1), y1: Math.max(u.y1, c.y1) }));
}

/**
 * The line's ink as connected blobs (8-way) of pixels darker than halfway between its darkest and
 * lightest, in image pixels: what places each character's rows (a raised exponent, a stacked fraction).
 */
export function inkComponents(image: RgbRaster, box: OcrBox): OcrBox[] {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  const luma = new Float32Array(w * h);
  let darkest = 255;
  let lightest = 0;
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      const v = lumaAt(image, box.x0 + x, box.y0 + y);
      luma[y * w + x] = v;
      darkest = Math.min(darkest, v);
      lightest = Math.max(lightest, v);
    }
  }
  if (lightest - darkest < 40) return [];
  const cut = (darkest + lightest) / 2;
  const seen = new Uint8Array(w * h);
  const components: OcrBox[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start += 1) {
    if (seen[start] === 1 || luma[start]! >= cut) continue;
    seen[start] = 1;
    stack.push(start);
    let x0 = w;
    let y0 = h;
    let x1 = 0;
    let y1 = 0;
    while (stack.length > 0) {
      const p = stack.pop()!;
      const px = p % w;
      const py = (p - px) / w;
      x0 = Math.min(x0, px);
      y0 = Math.min(y0, py);
      x1 = Math.max(x1, px + 1);
      y1 = Math.max(y1, py + 1);
      for (let dy = -1; dy <= 1; dy += 1) {
        for (let dx = -1; dx <= 1; dx += 1) {
          const nx = px + dx;
          const ny = py + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const q = ny * w + nx;
          if (seen[q] === 0 && luma[q]! < cut) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    // Specks (noise, JPEG ringing) are not ink.
    if ((x1 - x0) * (y1 - y0) >= 4) components.push({ x0: box.x0 + x0, y0: box.y0 + y0, x1: box.x0 + x1, y1: box.y0 + y1 });
  }
  return components;
}
