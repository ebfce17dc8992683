import { type OcrChar, type OcrLine, OcrInputError, type OcrReader, OcrReaderClosedError, OcrReaderError, type OcrReading, type OcrReadOptions, readingOrder } from '../port.js';
import { boxAround, postJson, prepareImage, probability } from './remote-ocr-call.js';

export const GOOGLE_VISION_READER = 'google/vision-document-text';
export const GOOGLE_VISION_BASE_URL = 'https://vision.googleapis.com';

/** An API key (`?key=`) or an OAuth access token (`Authorization: Bearer`): exactly one. */
export type GoogleVisionCredentials = { readonly apiKey: string } | { readonly accessToken: string };

export interface GoogleVisionReaderOptions {
  readonly credentials: GoogleVisionCredentials;
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

interface Vertex {
  readonly x?: number;
  readonly y?: number;
}
interface VisionSymbol {
  readonly text?: string;
  readonly confidence?: number;
  readonly boundingBox?: { readonly vertices?: readonly Vertex[] };
  readonly property?: { readonly detectedBreak?: { readonly type?: string } };
}
interface VisionPage {
  readonly width?: number;
  readonly height?: number;
  readonly blocks?: readonly { readonly paragraphs?: readonly { readonly words?: readonly { readonly symbols?: readonly VisionSymbol[] }[] }[] }[];
}
interface VisionStatus {
  readonly code?: number;
  readonly message?: string;
  readonly status?: string;
}
interface AnnotateImageResponse {
  readonly fullTextAnnotation?: { readonly pages?: readonly VisionPage[] };
  readonly error?: VisionStatus;
}

/** google.rpc.Code INVALID_ARGUMENT: the image or request was refused, not the service failing. */
const INVALID_ARGUMENT = 3;

/**
 * Google Cloud Vision `images:annotate` with `DOCUMENT_TEXT_DETECTION`. The answer's hierarchy
 * (pages → blocks → paragraphs → words → symbols) is cut into lines at the symbols' detected breaks
 * (`EOL_SURE_SPACE`, `LINE_BREAK`, `HYPHEN`) and at paragraph ends; every symbol becomes a char with its
 * own confidence and box, and a `SPACE`/`SURE_SPACE` break adds a space. A line's confidence is its
 * weakest character's, as the local reader's is. Vertices at 0 are left out of the JSON, hence `?? 0`.
 */
export class GoogleVisionReader implements OcrReader {
  readonly reader = GOOGLE_VISION_READER;
  readonly local = false;
  private closed = false;
  private readonly url: URL;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly secret: string;
  private readonly timeoutMs: number;

  constructor(options: GoogleVisionReaderOptions) {
    this.url = new URL('/v1/images:annotate', options.baseUrl ?? GOOGLE_VISION_BASE_URL);
    if ('apiKey' in options.credentials) {
      this.url.searchParams.set('key', options.credentials.apiKey);
      this.headers = {};
      this.secret = options.credentials.apiKey;
    } else {
      this.headers = { authorization: `Bearer ${options.credentials.accessToken}` };
      this.secret = options.credentials.accessToken;
    }
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  async read(image: Uint8Array, options: OcrReadOptions = {}): Promise<OcrReading> {
    if (this.closed) throw new OcrReaderClosedError(`${this.reader} reader is closed`);
    const prepared = await prepareImage(image);
    const answer = (await postJson(
      {
        reader: this.reader,
        url: this.url,
        headers: this.headers,
        body: { requests: [{ image: { content: prepared.base64 }, features: [{ type: 'DOCUMENT_TEXT_DETECTION' }] }] },
        secrets: [this.secret],
        errorText: (body) => statusText((body as { error?: VisionStatus }).error),
        // Google answers a bad API key with 400 INVALID_ARGUMENT too: that is our configuration, not the image.
        refusesInput: (status, body) => status === 400 && !JSON.stringify(body ?? '').includes('API_KEY_INVALID'),
      },
      this.timeoutMs,
      options,
    )) as { responses?: readonly AnnotateImageResponse[] };
    const response = answer.responses?.[0];
    if (response === undefined) throw new OcrReaderError(`${this.reader}: answer has no responses[0]`);
    // A per-image failure comes back inside HTTP 200.
    if (response.error !== undefined) {
      const message = `${this.reader}: ${statusText(response.error) ?? 'unknown error'}`;
      throw response.error.code === INVALID_ARGUMENT ? new OcrInputError(message) : new OcrReaderError(message);
    }
    const page = response.fullTextAnnotation?.pages?.[0];
    const width = page?.width ?? prepared.width;
    const height = page?.height ?? prepared.height;
    const lines = (response.fullTextAnnotation?.pages ?? []).flatMap((p) => pageLines(p, width, height));
    return { reader: this.reader, local: false, lines: readingOrder(lines).flat(), width, height };
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

const LINE_ENDS = new Set(['EOL_SURE_SPACE', 'LINE_BREAK', 'HYPHEN']);
const SPACES = new Set(['SPACE', 'SURE_SPACE']);

function pageLines(page: VisionPage, width: number, height: number): OcrLine[] {
  const lines: OcrLine[] = [];
  let chars: OcrChar[] = [];
  const endLine = (): void => {
    while (chars.at(-1)?.text === ' ') chars.pop();
    if (chars.length > 0) {
      const boxes = chars.flatMap((c) => (c.box === undefined ? [] : [c.box]));
      lines.push({
        text: chars.map((c) => c.text).join(''),
        confidence: Math.min(...chars.map((c) => c.confidence)),
        box: boxAround(boxes.flatMap((b) => [{ x: b.x0, y: b.y0 }, { x: b.x1, y: b.y1 }]), width, height),
        chars,
      });
    }
    chars = [];
  };
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs ?? []) {
      for (const word of paragraph.words ?? []) {
        for (const symbol of word.symbols ?? []) {
          if (typeof symbol.text !== 'string' || symbol.text === '') continue;
          const confidence = probability(symbol.confidence, 0);
          const vertices = symbol.boundingBox?.vertices ?? [];
          chars.push({ text: symbol.text, confidence, ...(vertices.length > 0 ? { box: boxAround(vertices.map((v) => ({ x: v.x ?? 0, y: v.y ?? 0 })), width, height) } : {}) });
          const breakType = symbol.property?.detectedBreak?.type;
          if (breakType === 'HYPHEN') chars.push({ text: '-', confidence });
          if (breakType !== undefined && SPACES.has(breakType)) chars.push({ text: ' ', confidence });
          if (breakType !== undefined && LINE_ENDS.has(breakType)) endLine();
        }
      }
      endLine();
    }
  }
  return lines;
}

function statusText(status: VisionStatus | undefined): string | undefined {
  if (status === undefined) return undefined;
  const label = status.status ?? (status.code === undefined ? undefined : `code ${status.code}`);
  return [label, status.message].filter((part) => part !== undefined).join(': ') || undefined;
}
