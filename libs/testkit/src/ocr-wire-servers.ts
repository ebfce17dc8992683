import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from './llm-wire-servers.js';

/** One OCR request as a wire server received it. */
export interface OcrWireRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

export interface WireBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** A line the server "read": its text, where it is, and how sure it is. */
export interface WireLine {
  readonly text: string;
  readonly box: WireBox;
  /** Line confidence (Mathpix), or every symbol's (Vision) unless `charConfidences` gives them one by one. */
  readonly confidence: number;
  /** Vision: one per non-space character of `text`. */
  readonly charConfidences?: readonly number[];
  /** Mathpix `line_data[].type`: `math` for a line of maths, else `text`. */
  readonly type?: 'text' | 'math';
}

/** A read (200), the service's own error body, an HTTP failure, or no answer until the client gives up. */
export type OcrWireAnswer<ServiceError> =
  | { readonly lines: readonly WireLine[]; readonly width: number; readonly height: number; readonly confidence?: number }
  | { readonly serviceError: ServiceError }
  | { readonly status: number; readonly message: string; readonly retryAfterSeconds?: number }
  | { readonly hang: true };

export interface OcrWireServer {
  /** The root URL to give the reader as its base URL. */
  readonly baseUrl: string;
  readonly requests: OcrWireRequest[];
  close(): Promise<void>;
}

/** What each wire format does with a request the harness has parsed. */
interface WireFormat<ServiceError> {
  readonly path: string;
  /** A response when the request's credentials or shape are wrong, as the real service answers it. */
  refuse(request: OcrWireRequest): { status: number; body: unknown } | undefined;
  read(answer: Extract<OcrWireAnswer<ServiceError>, { lines: unknown }>, request: OcrWireRequest): unknown;
  serviceError(error: ServiceError): { status: number; body: unknown };
  httpError(status: number, message: string): unknown;
}

function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>);
      } catch {
        resolve({});
      }
    });
  });
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function startOcrWireServer<ServiceError>(format: WireFormat<ServiceError>, answer: (request: OcrWireRequest) => OcrWireAnswer<ServiceError> | Promise<OcrWireAnswer<ServiceError>>): Promise<OcrWireServer> {
  const requests: OcrWireRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: OcrWireRequest = { path: url.pathname, query: url.searchParams, headers: req.headers, body };
      requests.push(request);
      if (req.method !== 'POST' || url.pathname !== format.path) return reply(res, 404, format.httpError(404, `no route ${req.method ?? ''} ${url.pathname}`));
      const refused = format.refuse(request);
      if (refused !== undefined) return reply(res, refused.status, refused.body);
      const a = await answer(request);
      if ('hang' in a) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if ('serviceError' in a) {
        const { status, body: errorBody } = format.serviceError(a.serviceError);
        return reply(res, status, errorBody);
      }
      if ('status' in a) return reply(res, a.status, format.httpError(a.status, a.message), a.retryAfterSeconds === undefined ? {} : { 'retry-after': String(a.retryAfterSeconds) });
      return reply(res, 200, format.read(a, request));
    });
  });
  const { port, close } = await listen(server, hanging);
  return { baseUrl: `http://127.0.0.1:${port}`, requests, close };
}

/** Mathpix's error body: `error_info.id` (`image_no_content`, `image_download_error`, `http_unauthorized`, …); HTTP 200 unless `status`. */
export interface MathpixServiceError {
  readonly id: string;
  readonly message: string;
  readonly status?: number;
}

const DATA_URL = /^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/]+=*$/;

/**
 * A local server speaking Mathpix `POST /v3/text` (docs.mathpix.com): `app_id`/`app_key` headers
 * checked (401 `http_unauthorized` otherwise), `src` must be a base64 image data URL, `line_data` only
 * when `include_line_data` is asked for, maths lines written between `\(` `\)` as Mathpix Markdown does.
 */
export function startMathpixWireServer(
  credentials: { readonly appId: string; readonly appKey: string },
  answer: (request: OcrWireRequest) => OcrWireAnswer<MathpixServiceError> | Promise<OcrWireAnswer<MathpixServiceError>>,
): Promise<OcrWireServer> {
  const errorBody = (id: string, message: string): unknown => ({ error: message, error_info: { id, message } });
  return startOcrWireServer<MathpixServiceError>(
    {
      path: '/v3/text',
      refuse: (request) => {
        if (request.headers['app_id'] !== credentials.appId || request.headers['app_key'] !== credentials.appKey) {
          return { status: 401, body: errorBody('http_unauthorized', 'Invalid credentials') };
        }
        if (typeof request.body['src'] !== 'string' || !DATA_URL.test(request.body['src'])) return { status: 200, body: errorBody('image_download_error', 'src is not an image URL or data URL') };
        return undefined;
      },
      read: (a, request) => {
        const mmd = (line: WireLine): string => (line.type === 'math' ? `\\( ${line.text} \\)` : line.text);
        const confidence = a.confidence ?? Math.min(1, ...a.lines.map((l) => l.confidence));
        return {
          request_id: `req-${Date.now()}`,
          version: 'RSK-M114',
          text: a.lines.map(mmd).join('\n'),
          confidence,
          confidence_rate: confidence,
          is_printed: true,
          is_handwritten: false,
          auto_rotate_confidence: 0,
          auto_rotate_degrees: 0,
          image_width: a.width,
          image_height: a.height,
          ...(request.body['include_line_data'] === true
            ? {
                line_data: a.lines.map((l) => ({
                  type: l.type ?? 'text',
                  cnt: [
                    [l.box.x0, l.box.y0],
                    [l.box.x1, l.box.y0],
                    [l.box.x1, l.box.y1],
                    [l.box.x0, l.box.y1],
                  ],
                  included: true,
                  is_printed: true,
                  is_handwritten: false,
                  text: mmd(l),
                  confidence: l.confidence,
                  confidence_rate: l.confidence,
                })),
              }
            : {}),
        };
      },
      serviceError: (e) => ({ status: e.status ?? 200, body: errorBody(e.id, e.message) }),
      httpError: (status, message) => errorBody(status === 429 ? 'http_max_requests' : status >= 500 ? 'sys_exception' : 'http_error', message),
    },
    answer,
  );
}

/** A google.rpc.Status inside `responses[0].error` (HTTP 200), e.g. code 3 INVALID_ARGUMENT "Bad image data.". */
export interface VisionServiceError {
  readonly code: number;
  readonly message: string;
}

const RPC_STATUS_OF_HTTP: Readonly<Record<number, string>> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

/** proto3 JSON leaves out zero coordinates. */
function vertex(x: number, y: number): { x?: number; y?: number } {
  return { ...(x === 0 ? {} : { x }), ...(y === 0 ? {} : { y }) };
}

/**
 * A local server speaking Google Cloud Vision `POST /v1/images:annotate` with `DOCUMENT_TEXT_DETECTION`:
 * `?key=` or `Authorization: Bearer` checked (a wrong key is 400 `API_KEY_INVALID`, a wrong token 401, as
 * Google answers), `requests[0].image.content` must be base64. The lines become one block of one paragraph
 * (so only the breaks end lines), one word per run of non-spaces, one symbol per character with its box (the line's box cut
 * evenly) and confidence; `SPACE` between words, `EOL_SURE_SPACE` ending a line, `LINE_BREAK` the last.
 */
export function startGoogleVisionWireServer(
  credentials: { readonly apiKey?: string; readonly accessToken?: string },
  answer: (request: OcrWireRequest) => OcrWireAnswer<VisionServiceError> | Promise<OcrWireAnswer<VisionServiceError>>,
): Promise<OcrWireServer> {
  const status = (code: number, message: string, details: unknown[] = []): unknown => ({ error: { code, message, status: RPC_STATUS_OF_HTTP[code] ?? 'UNKNOWN', ...(details.length > 0 ? { details } : {}) } });
  return startOcrWireServer<VisionServiceError>(
    {
      path: '/v1/images:annotate',
      refuse: (request) => {
        const key = request.query.get('key');
        const bearer = request.headers.authorization?.replace(/^Bearer /, '');
        if (key !== null && key !== credentials.apiKey) {
          return { status: 400, body: status(400, 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]) };
        }
        if (key === null && (bearer === undefined || bearer !== credentials.accessToken)) return { status: 401, body: status(401, 'Request is missing required authentication credential.') };
        const first = (request.body['requests'] as { image?: { content?: unknown }; features?: { type?: unknown }[] }[] | undefined)?.[0];
        if (typeof first?.image?.content !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(first.image.content)) return { status: 400, body: status(400, 'Invalid value at requests[0].image.content') };
        if (first.features?.[0]?.type !== 'DOCUMENT_TEXT_DETECTION') return { status: 400, body: status(400, 'requests[0].features[0].type must be a feature type') };
        return undefined;
      },
      read: (a) => ({
        responses: [
          {
            fullTextAnnotation: {
              text: a.lines.map((l) => `${l.text}\n`).join(''),
              pages: [
                {
                  width: a.width,
                  height: a.height,
                  confidence: Math.min(1, ...a.lines.map((l) => l.confidence)),
                  blocks: [{ blockType: 'TEXT', paragraphs: [{ words: a.lines.flatMap((line, i) => visionWords(line, i === a.lines.length - 1)) }] }],
                },
              ],
            },
          },
        ],
      }),
      serviceError: (e) => ({ status: 200, body: { responses: [{ error: { code: e.code, message: e.message } }] } }),
      httpError: (code, message) => status(code, message),
    },
    answer,
  );
}

function visionWords(line: WireLine, last: boolean): unknown[] {
  const glyphs = [...line.text].filter((c) => c !== ' ').length;
  const step = (line.box.x1 - line.box.x0) / Math.max(1, glyphs);
  const poly = (x0: number, x1: number): unknown => ({ vertices: [vertex(x0, line.box.y0), vertex(x1, line.box.y0), vertex(x1, line.box.y1), vertex(x0, line.box.y1)] });
  const words = line.text.split(' ').filter((w) => w !== '');
  let glyph = 0;
  return words.map((word, w) => ({
      confidence: line.confidence,
      symbols: [...word].map((text, s) => {
        const x0 = Math.round(line.box.x0 + glyph * step);
        const x1 = Math.round(line.box.x0 + (glyph + 1) * step);
        const confidence = line.charConfidences?.[glyph] ?? line.confidence;
        glyph += 1;
        const endOfWord = s === word.length - 1;
        const endOfLine = endOfWord && w === words.length - 1;
        const breakType = endOfLine ? (last ? 'LINE_BREAK' : 'EOL_SURE_SPACE') : endOfWord ? 'SPACE' : undefined;
        return { text, confidence, boundingBox: poly(x0, x1), ...(breakType === undefined ? {} : { property: { detectedBreak: { type: breakType } } }) };
      }),
    }));
}
