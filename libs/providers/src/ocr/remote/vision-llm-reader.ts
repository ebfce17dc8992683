import { LlmCallFailedError } from '../../llm/errors.js';
import type { LlmClient } from '../../llm/port.js';
import { type OcrLine, OcrReaderClosedError, OcrReaderError, type OcrReader, type OcrReading, type OcrReadOptions, OcrTimeoutError } from '../port.js';
import { holdsMathsSpan, mathpixLineText } from './mathpix-markdown.js';
import { prepareImage } from './remote-ocr-call.js';

export const VISION_LLM_READER = 'vision-llm';

export interface VisionLlmReaderOptions {
  readonly llm: LlmClient;
  /** `provider/model` of a model that reads images; the client's default when omitted. */
  readonly model?: string;
  /** Bound on one read when the caller gives none. */
  readonly timeoutMs?: number;
}

/** What the model is asked: the text as printed, maths in LaTeX between `\(` `\)`, nothing added. */
const INSTRUCTIONS = [
  'Transcribe the maths problem in the image exactly as printed, line by line.',
  'Write prose as it is and every maths expression in LaTeX between \\( and \\).',
  'Do not solve, correct, complete or explain anything. If any character cannot be read, write [?] in its place.',
  'Answer with the transcription only.',
].join('\n');

/**
 * A vision LLM as a reader, through the LLM port: the image goes to the model with the instructions
 * above, and its answer's lines come back with their LaTeX written as plain maths (the same converter
 * as Mathpix's; what it cannot write is the line's `unread`). A model gives no confidence and can
 * write plausible maths that is not on the page, so every line reports confidence 0: alone, its
 * reading is only ever offered to the user to confirm; `SecondOpinionReader` lets another reader vouch for it.
 */
export class VisionLlmReader implements OcrReader {
  readonly reader: string;
  readonly local = false;
  private closed = false;
  private readonly timeoutMs: number;

  constructor(private readonly options: VisionLlmReaderOptions) {
    this.reader = `${VISION_LLM_READER}/${options.model ?? options.llm.describe().defaultModel}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async read(image: Uint8Array, options: OcrReadOptions = {}): Promise<OcrReading> {
    if (this.closed) throw new OcrReaderClosedError(`${this.reader} reader is closed`);
    const prepared = await prepareImage(image);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    let text: string;
    try {
      const answer = await this.options.llm.chat(
        [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: 'The image:', images: [{ mimeType: prepared.mimeType, data: image }] },
        ],
        { ...(this.options.model === undefined ? {} : { model: this.options.model, fallbackModels: [] }), maxTokens: 1_000, temperature: 0, timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
      text = answer.text;
    } catch (error) {
      if (error instanceof LlmCallFailedError && error.attempts.at(-1)?.outcome === 'timeout') throw new OcrTimeoutError(`${this.reader}: no answer within ${timeoutMs} ms`);
      throw new OcrReaderError(`${this.reader}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const rows = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const height = prepared.height / Math.max(1, rows.length);
    const lines: OcrLine[] = rows.map((row, i) => {
      const plain = mathpixLineText(row);
      const illegible = row.includes('[?]') ? 'a character the model marked illegible ([?])' : undefined;
      const unread = plain.unread ?? illegible;
      return {
        text: plain.text,
        confidence: 0,
        // The model places nothing: each line gets its share of the page, in order.
        box: { x0: 0, y0: Math.round(i * height), x1: prepared.width, y1: Math.round((i + 1) * height) },
        chars: [],
        latex: holdsMathsSpan(row),
        ...(unread === undefined ? {} : { unread }),
      };
    });
    return { reader: this.reader, local: false, lines, width: prepared.width, height: prepared.height };
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
