import { type OcrLine, OcrInputError, type OcrReader, OcrReaderClosedError, OcrReaderError, type OcrReading, type OcrReadOptions, readingOrder } from '../port.js';
import { holdsMathsSpan, mathpixLineText } from './mathpix-markdown.js';
import { boxAround, postJson, prepareImage, probability } from './remote-ocr-call.js';

export const MATHPIX_READER = 'mathpix/v3-text';
export const MATHPIX_BASE_URL = 'https://api.mathpix.com';

export interface MathpixReaderOptions {
  readonly appId: string;
  readonly appKey: string;
  /** Without the path; tests point it at a local server. */
  readonly baseUrl?: string;
  /** Bound on one call when the caller gives none. */
  readonly timeoutMs?: number;
}

/** The parts of a `v3/text` answer this reader uses (docs.mathpix.com, "Process an image"). */
interface MathpixTextResponse {
  readonly text?: unknown;
  readonly confidence?: unknown;
  readonly image_width?: unknown;
  readonly image_height?: unknown;
  readonly line_data?: unknown;
  readonly error?: unknown;
  readonly error_info?: { readonly id?: unknown; readonly message?: unknown };
}

interface MathpixLineData {
  readonly type?: unknown;
  readonly cnt?: unknown;
  readonly included?: unknown;
  readonly text?: unknown;
  readonly confidence?: unknown;
}

/**
 * Mathpix OCR (`POST /v3/text`, app_id/app_key headers): the image goes as a base64 data URL; the answer
 * is Mathpix Markdown, maths between `\(` `\)`. Lines come from `line_data` (each with its contour and,
 * when given, its confidence; else the whole answer's); a line holding maths is marked `latex`, and its
 * LaTeX is written as plain maths (`mathpixLineText`; what it cannot write is the line's `unread`). Mathpix
 * gives no per-character results, so `chars` is empty. An image the service cannot read (`error_info.id`
 * `image_*`) is an `OcrInputError`; credentials, quota and service faults are `OcrReaderError`.
 */
export class MathpixReader implements OcrReader {
  readonly reader = MATHPIX_READER;
  readonly local = false;
  private closed = false;
  private readonly url: URL;
  private readonly timeoutMs: number;

  constructor(private readonly options: MathpixReaderOptions) {
    this.url = new URL('/v3/text', options.baseUrl ?? MATHPIX_BASE_URL);
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  async read(image: Uint8Array, options: OcrReadOptions = {}): Promise<OcrReading> {
    if (this.closed) throw new OcrReaderClosedError(`${this.reader} reader is closed`);
    const prepared = await prepareImage(image);
    const answer = (await postJson(
      {
        reader: this.reader,
        url: this.url,
        headers: { app_id: this.options.appId, app_key: this.options.appKey },
        body: {
          src: `data:${prepared.mimeType};base64,${prepared.base64}`,
          formats: ['text'],
          include_line_data: true,
          math_inline_delimiters: ['\\(', '\\)'],
          math_display_delimiters: ['\\[', '\\]'],
          rm_spaces: true,
        },
        secrets: [this.options.appKey],
        errorText: (body) => errorText(body as MathpixTextResponse),
      },
      this.timeoutMs,
      options,
    )) as MathpixTextResponse;
    // Mathpix answers some failures with HTTP 200 and an `error` field.
    if (answer.error !== undefined || answer.error_info !== undefined) {
      const id = typeof answer.error_info?.id === 'string' ? answer.error_info.id : '';
      const message = `${this.reader}: ${errorText(answer) ?? 'unknown error'}`;
      throw /^(image_|opts_|json_)/.test(id) ? new OcrInputError(message) : new OcrReaderError(message);
    }
    const width = typeof answer.image_width === 'number' ? answer.image_width : prepared.width;
    const height = typeof answer.image_height === 'number' ? answer.image_height : prepared.height;
    const overall = probability(answer.confidence, 0);
    const lines = Array.isArray(answer.line_data)
      ? (answer.line_data as MathpixLineData[]).filter((l) => l.included !== false && typeof l.text === 'string' && l.text.trim() !== '').map((l) => lineOf(l, overall, width, height))
      : textLines(answer.text, overall, width, height);
    return { reader: this.reader, local: false, lines: readingOrder(lines).flat(), width, height };
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function lineOf(line: MathpixLineData, overall: number, width: number, height: number): OcrLine {
  const markdown = (line.text as string).trim();
  const contour = Array.isArray(line.cnt) ? (line.cnt as unknown[]).filter((p): p is [number, number] => Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'number') : [];
  return {
    ...plainLine(markdown, line.type === 'math'),
    confidence: probability(line.confidence, overall),
    box: boxAround(contour.map(([x, y]) => ({ x, y })), width, height),
  };
}

/** A line of Mathpix Markdown as the port's line: its maths written as plain text, or what could not be. */
function plainLine(markdown: string, maths: boolean): Pick<OcrLine, 'text' | 'chars' | 'latex' | 'unread'> {
  // A `math` line may come without delimiters: all of it is LaTeX.
  const latex = maths || holdsMathsSpan(markdown);
  const plain = mathpixLineText(maths && !holdsMathsSpan(markdown) ? `\\(${markdown}\\)` : markdown);
  return { text: plain.text, chars: [], latex, ...(plain.unread === undefined ? {} : { unread: plain.unread }) };
}

/** Without `line_data`: one line per line of the Markdown, each placed over the whole image. */
function textLines(text: unknown, overall: number, width: number, height: number): OcrLine[] {
  if (typeof text !== 'string') throw new OcrReaderError(`${MATHPIX_READER}: answer has neither text nor line_data`);
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => ({ ...plainLine(l, false), confidence: overall, box: { x0: 0, y0: 0, x1: width, y1: height } }));
}

function errorText(body: MathpixTextResponse): string | undefined {
  const info = body.error_info;
  const id = typeof info?.id === 'string' ? info.id : undefined;
  const message = typeof info?.message === 'string' ? info.message : typeof body.error === 'string' ? body.error : undefined;
  if (id === undefined) return message;
  return message === undefined ? id : `${id}: ${message}`;
}
