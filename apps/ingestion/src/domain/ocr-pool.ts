import { OpenPawError } from '@openpaw/contracts';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createWorker, OEM, PSM, type Page, type Worker } from 'tesseract.js';

export interface OcrBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** One recognised character and its box. */
export interface OcrSymbol {
  readonly text: string;
  readonly bbox: OcrBox;
  /** 0..100, when the engine reports it. */
  readonly confidence?: number;
}

/** One recognised word, with its confidence and its characters' boxes (what the maths reading checks). */
export interface OcrWord {
  readonly text: string;
  /** 0..100. */
  readonly confidence: number;
  /** Index of its line on the page, in reading order. */
  readonly line: number;
  readonly bbox: OcrBox;
  readonly symbols: readonly OcrSymbol[];
}

export interface OcrResult {
  readonly text: string;
  /** Tesseract's mean word confidence, 0..100. */
  readonly confidence: number;
  /** The words with their confidences, when the engine reports them. */
  readonly words?: readonly OcrWord[];
}

/** How the page is segmented: tesseract's automatic layout analysis, the page as one uniform block of text, one word, or one character. */
export type PageSegmentation = 'auto' | 'block' | 'word' | 'char';

export interface RecogniseOptions {
  readonly segmentation?: PageSegmentation;
  /** Only these characters may be recognised (e.g. digits, for an exponent cut out of the page). */
  readonly charWhitelist?: string;
}

/** The OCR port the ingestion pipeline depends on; the tesseract pool below is the local default. */
export interface OcrEngine {
  recognise(image: Buffer, options?: RecogniseOptions): Promise<OcrResult>;
  shutdown(): Promise<void>;
}

const PSM_OF: Readonly<Record<PageSegmentation, PSM>> = { auto: PSM.AUTO, block: PSM.SINGLE_BLOCK, word: PSM.SINGLE_WORD, char: PSM.SINGLE_CHAR };

function wordsOf(page: Page): OcrWord[] {
  const words: OcrWord[] = [];
  let line = 0;
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const l of paragraph.lines) {
        for (const w of l.words) {
          words.push({ text: w.text, confidence: w.confidence, line, bbox: w.bbox, symbols: w.symbols.map((s) => ({ text: s.text, bbox: s.bbox, confidence: s.confidence })) });
        }
        line += 1;
      }
    }
  }
  return words;
}

export interface TesseractPoolOptions {
  /** Workers kept alive; each is a wasm Tesseract instance (~50–100 MB). One per core is the sweet spot. */
  readonly size?: number;
  /** Traineddata variant from @tesseract.js-data/eng: `best_int` (LSTM, more accurate) or `fast` (legacy 4.0.0). */
  readonly model?: 'best_int' | 'standard';
  /** Override for the directory holding `eng.traineddata.gz`. */
  readonly langPath?: string;
}

export class OcrPoolClosedError extends OpenPawError {
  readonly code = 'ocr_pool_closed';
  override readonly name = 'OcrPoolClosedError';
}

const require = createRequire(import.meta.url);

/** Directory of the installed English traineddata; resolved from the package so no path is hard-coded. */
export function bundledEnglishDataPath(model: 'best_int' | 'standard' = 'best_int'): string {
  const packageDir = dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  return join(packageDir, model === 'best_int' ? '4.0.0_best_int' : '4.0.0');
}

interface Waiter {
  readonly resolve: (worker: Worker) => void;
  readonly reject: (error: Error) => void;
}

/**
 * A long-lived pool of tesseract.js workers, created lazily on first use and reused across requests:
 * starting a worker (wasm + traineddata) costs hundreds of milliseconds, recognising a page far less.
 * Fully offline: traineddata is read from the installed package (`langPath` is a directory, so
 * tesseract.js reads the file instead of fetching from its CDN) and `cacheMethod: 'none'` stops it
 * writing a copy into the working directory.
 */
export class TesseractOcrPool implements OcrEngine {
  private readonly size: number;
  private readonly langPath: string;
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly waiters: Waiter[] = [];
  private starting = 0;
  private closed = false;

  constructor(options: TesseractPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? 1);
    this.langPath = options.langPath ?? bundledEnglishDataPath(options.model ?? 'best_int');
  }

  /** Workers currently alive (for health reporting and tests). */
  get workerCount(): number {
    return this.all.size;
  }

  async recognise(image: Buffer, options: RecogniseOptions = {}): Promise<OcrResult> {
    const worker = await this.acquire();
    let healthy = true;
    try {
      await worker.setParameters({ tessedit_pageseg_mode: PSM_OF[options.segmentation ?? 'auto'], tessedit_char_whitelist: options.charWhitelist ?? '' });
      const { data } = await worker.recognize(image, {}, { text: true, blocks: true });
      return { text: data.text, confidence: data.confidence, words: wordsOf(data) };
    } catch (error) {
      // A failed recognise can leave the wasm instance in any state; replace it rather than reuse it.
      healthy = false;
      throw error;
    } finally {
      if (healthy) this.release(worker);
      else await this.discard(worker);
    }
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new OcrPoolClosedError('OCR pool shut down'));
    const workers = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private async acquire(): Promise<Worker> {
    if (this.closed) throw new OcrPoolClosedError('OCR pool shut down');
    const ready = this.idle.pop();
    if (ready !== undefined) return ready;
    if (this.all.size + this.starting < this.size) return this.startWorker();
    return new Promise<Worker>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private async startWorker(): Promise<Worker> {
    this.starting += 1;
    let worker: Worker;
    try {
      // tesseract.js never settles createWorker when the language fails to load (it only reports the
      // error to errorHandler, or throws it uncaught without one) and leaks the thread; so check the
      // data is there first, and treat an error reported during start-up as the start failing.
      const dataFile = join(this.langPath, 'eng.traineddata.gz');
      await access(dataFile, constants.R_OK).catch(() => {
        throw new Error(`OCR traineddata not readable at ${dataFile}`);
      });
      let failStart: (error: Error) => void = () => undefined;
      const startFailed = new Promise<never>((_resolve, reject) => {
        failStart = reject;
      });
      startFailed.catch(() => undefined);
      worker = await Promise.race([
        createWorker('eng', OEM.LSTM_ONLY, {
          langPath: this.langPath,
          gzip: true,
          cacheMethod: 'none',
          logger: () => undefined,
          // Recognition errors also reject their own job promise; this only matters during start-up.
          errorHandler: (error: unknown) => failStart(new Error(`tesseract: ${String(error)}`)),
        }),
        startFailed,
      ]);
    } catch (error) {
      this.starting -= 1;
      this.retryForWaiter();
      throw error;
    }
    this.starting -= 1;
    // Inputs are screenshots and renders without a trustworthy density; an explicit DPI stops Tesseract
    // guessing from a bogus pHYs chunk (and warning on stdout for every page).
    await worker.setParameters({ user_defined_dpi: '300' });
    if (this.closed) {
      await worker.terminate();
      throw new OcrPoolClosedError('OCR pool shut down');
    }
    this.all.add(worker);
    return worker;
  }

  /** A waiter queued behind a worker that will never come back (failed start, discarded) tries afresh. */
  private retryForWaiter(): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) this.acquire().then((w) => waiter.resolve(w), (e: unknown) => waiter.reject(e as Error));
  }

  private release(worker: Worker): void {
    if (!this.all.has(worker)) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter.resolve(worker);
    else this.idle.push(worker);
  }

  private async discard(worker: Worker): Promise<void> {
    this.all.delete(worker);
    await worker.terminate().catch(() => undefined);
    this.retryForWaiter();
  }
}
