import { type OcrWireAnswer, type OcrWireServer, renderProblemPng, startGoogleVisionWireServer, type VisionServiceError } from '@openpaw/testkit';
import { OcrInputError, OcrReaderError, OcrTimeoutError } from '../port.js';
import { GOOGLE_VISION_READER, type GoogleVisionCredentials, GoogleVisionReader } from './google-vision-reader.js';

const API_KEY = 'AIzaSyTestKey0123456789abcdefghijkl';
const ACCESS_TOKEN = 'ya29.test-token-0123456789';

describe('GoogleVisionReader against a local server speaking images:annotate', () => {
  let server: OcrWireServer;
  let next: OcrWireAnswer<VisionServiceError>;
  let image: Buffer;

  beforeAll(async () => {
    image = await renderProblemPng('2x + 3 = 11');
    server = await startGoogleVisionWireServer({ apiKey: API_KEY, accessToken: ACCESS_TOKEN }, () => next);
  });
  afterAll(() => server.close());

  const reader = (credentials: GoogleVisionCredentials = { apiKey: API_KEY }): GoogleVisionReader => new GoogleVisionReader({ credentials, baseUrl: server.baseUrl, timeoutMs: 2_000 });

  it('sends DOCUMENT_TEXT_DETECTION with the image as base64 and cuts lines at the detected breaks, a char per symbol', async () => {
    next = {
      width: 900,
      height: 260,
      lines: [
        { text: 'Solve', confidence: 0.99, box: { x0: 0, y0: 0, x1: 250, y1: 60 } },
        { text: '2x + 3', confidence: 0.95, charConfidences: [0.98, 0.42, 0.97, 0.96], box: { x0: 60, y0: 150, x1: 460, y1: 210 } },
      ],
    };
    const reading = await reader().read(image);

    const sent = server.requests.at(-1);
    expect(sent?.path).toBe('/v1/images:annotate');
    expect(sent?.query.get('key')).toBe(API_KEY);
    expect(sent?.body).toEqual({ requests: [{ image: { content: image.toString('base64') }, features: [{ type: 'DOCUMENT_TEXT_DETECTION' }] }] });

    expect(reading).toMatchObject({ reader: GOOGLE_VISION_READER, local: false, width: 900, height: 260 });
    expect(reading.lines.map((l) => [l.text, l.confidence, l.box])).toEqual([
      ['Solve', 0.99, { x0: 0, y0: 0, x1: 250, y1: 60 }],
      ['2x + 3', 0.42, { x0: 60, y0: 150, x1: 460, y1: 210 }],
    ]);
    // Zero coordinates are left out of the JSON: the first symbol still starts at 0,0.
    expect(reading.lines[0]?.chars[0]).toEqual({ text: 'S', confidence: 0.99, box: { x0: 0, y0: 0, x1: 50, y1: 60 } });
    expect(reading.lines[1]?.chars).toEqual([
      { text: '2', confidence: 0.98, box: { x0: 60, y0: 150, x1: 160, y1: 210 } },
      { text: 'x', confidence: 0.42, box: { x0: 160, y0: 150, x1: 260, y1: 210 } },
      { text: ' ', confidence: 0.42 },
      { text: '+', confidence: 0.97, box: { x0: 260, y0: 150, x1: 360, y1: 210 } },
      { text: ' ', confidence: 0.97 },
      { text: '3', confidence: 0.96, box: { x0: 360, y0: 150, x1: 460, y1: 210 } },
    ]);
  });

  it('repairs recognised text PostgreSQL cannot hold (NUL dropped, a lone surrogate as U+FFFD) before it goes anywhere', async () => {
    next = { width: 900, height: 260, lines: [{ text: 'x\u0000 = \ud8003', confidence: 0.9, box: { x0: 10, y0: 10, x1: 400, y1: 60 } }] };
    const reading = await reader().read(image);
    const [line] = reading.lines;
    // (The wire server cuts the text into symbols with breaks, so the spacing is its own.)
    expect(line?.text.replace(/\s+/g, '')).toBe('x=\ufffd3');
    expect(line?.chars.map((c) => c.text).join('')).not.toMatch(/\u0000|[\ud800-\udfff]/);
  });

  it('authenticates with a bearer token instead of a key', async () => {
    next = { width: 900, height: 260, lines: [{ text: '7', confidence: 0.9, box: { x0: 10, y0: 10, x1: 40, y1: 60 } }] };
    const reading = await reader({ accessToken: ACCESS_TOKEN }).read(image);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(server.requests.at(-1)?.query.has('key')).toBe(false);
    expect(reading.lines.map((l) => l.text)).toEqual(['7']);
  });

  it('reports a low confidence as the weakest character, and an empty page as no lines', async () => {
    next = { width: 900, height: 260, lines: [{ text: 'sy-4', confidence: 0.23, box: { x0: 0, y0: 0, x1: 400, y1: 60 } }] };
    expect((await reader().read(image)).lines.map((l) => l.confidence)).toEqual([0.23]);
    next = { width: 900, height: 260, lines: [] };
    expect((await reader().read(image)).lines).toEqual([]);
  });

  it('turns a per-image INVALID_ARGUMENT (inside HTTP 200) into OcrInputError, other codes into OcrReaderError', async () => {
    next = { serviceError: { code: 3, message: 'Bad image data.' } };
    await expect(reader().read(image)).rejects.toThrow(new OcrInputError(`${GOOGLE_VISION_READER}: code 3: Bad image data.`));
    next = { serviceError: { code: 13, message: 'Internal error.' } };
    await expect(reader().read(image)).rejects.toThrow(OcrReaderError);
  });

  it('treats a bad API key (400 API_KEY_INVALID) and a bad token (401) as reader failures, never showing either', async () => {
    const badKey = 'AIzaSyWrongKey9876543210zyxwvutsrqp';
    const keyError = await reader({ apiKey: badKey }).read(image).catch((e: unknown) => e);
    expect(keyError).toEqual(new OcrReaderError(`${GOOGLE_VISION_READER}: HTTP 400: INVALID_ARGUMENT: API key not valid. Please pass a valid API key.`));
    expect((keyError as Error).message).not.toContain(badKey);
    const tokenError = await reader({ accessToken: 'ya29.wrong-token-000000' }).read(image).catch((e: unknown) => e);
    expect(tokenError).toEqual(new OcrReaderError(`${GOOGLE_VISION_READER}: HTTP 401: UNAUTHENTICATED: Request is missing required authentication credential.`));
  });

  it('fails with OcrReaderError on 429 (naming Retry-After) and 5xx', async () => {
    next = { status: 429, message: 'Quota exceeded', retryAfterSeconds: 2 };
    await expect(reader().read(image)).rejects.toThrow(new OcrReaderError(`${GOOGLE_VISION_READER}: HTTP 429: RESOURCE_EXHAUSTED: Quota exceeded (retry after 2000 ms)`));
    next = { status: 500, message: 'Internal error encountered.' };
    await expect(reader().read(image)).rejects.toThrow(new OcrReaderError(`${GOOGLE_VISION_READER}: HTTP 500: INTERNAL: Internal error encountered.`));
  });

  it('gives up on a hung service with OcrTimeoutError', async () => {
    next = { hang: true };
    const started = Date.now();
    await expect(reader().read(image, { timeoutMs: 250 })).rejects.toThrow(new OcrTimeoutError(`${GOOGLE_VISION_READER}: no answer within 250 ms`));
    // Far below the reader's 15 s default, with room for a loaded CI machine (3.5 s seen at load 15).
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
