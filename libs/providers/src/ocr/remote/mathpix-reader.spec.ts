import { type MathpixServiceError, type OcrWireAnswer, type OcrWireServer, renderProblemPng, startMathpixWireServer } from '@openpaw/testkit';
import { OcrInputError, OcrReaderClosedError, OcrReaderError, OcrTimeoutError } from '../port.js';
import { MATHPIX_READER, MathpixReader } from './mathpix-reader.js';

const APP_ID = 'openpaw-test';
const APP_KEY = 'mpx-key-0123456789abcdef';

describe('MathpixReader against a local server speaking v3/text', () => {
  let server: OcrWireServer;
  let next: OcrWireAnswer<MathpixServiceError>;
  let image: Buffer;

  beforeAll(async () => {
    image = await renderProblemPng('Solve for x: 2x^2 + 3 = 11');
    server = await startMathpixWireServer({ appId: APP_ID, appKey: APP_KEY }, () => next);
  });
  afterAll(() => server.close());

  const reader = (appKey = APP_KEY, timeoutMs = 2_000): MathpixReader => new MathpixReader({ appId: APP_ID, appKey, baseUrl: server.baseUrl, timeoutMs });

  it('sends the image as a data URL with its credentials and maps line_data to lines, maths marked latex and written as plain maths', async () => {
    next = {
      width: 900,
      height: 260,
      lines: [
        { text: '2 x^{2}+3=11', type: 'math', confidence: 0.97, box: { x0: 60, y0: 150, x1: 700, y1: 210 } },
        { text: 'Solve for x:', confidence: 0.99, box: { x0: 60, y0: 40, x1: 420, y1: 100 } },
      ],
    };
    const reading = await reader().read(image);

    const sent = server.requests.at(-1);
    expect(sent?.path).toBe('/v3/text');
    expect(sent?.headers['app_id']).toBe(APP_ID);
    expect(sent?.headers['app_key']).toBe(APP_KEY);
    expect(sent?.body['src']).toBe(`data:image/png;base64,${image.toString('base64')}`);
    expect(sent?.body['include_line_data']).toBe(true);

    expect(reading).toMatchObject({ reader: MATHPIX_READER, local: false, width: 900, height: 260 });
    expect(reading.lines).toEqual([
      { text: 'Solve for x:', confidence: 0.99, box: { x0: 60, y0: 40, x1: 420, y1: 100 }, chars: [], latex: false },
      { text: '2x^2+3=11', confidence: 0.97, box: { x0: 60, y0: 150, x1: 700, y1: 210 }, chars: [], latex: true },
    ]);
  });

  it('names LaTeX it cannot write as plain maths on the line (never drops it)', async () => {
    next = { width: 900, height: 260, lines: [{ text: '\\int_{0}^{1} x d x', type: 'math', confidence: 0.99, box: { x0: 0, y0: 0, x1: 900, y1: 260 } }] };
    const reading = await reader().read(image);
    expect(reading.lines).toMatchObject([{ latex: true, unread: 'the LaTeX command \\int' }]);
  });

  it('reports a low confidence as the service gave it', async () => {
    next = { width: 900, height: 260, lines: [{ text: '5y-4=2y+11', confidence: 0.18, box: { x0: 0, y0: 0, x1: 900, y1: 260 } }] };
    const reading = await reader().read(image);
    expect(reading.lines.map((l) => [l.text, l.confidence])).toEqual([['5y-4=2y+11', 0.18]]);
  });

  it('turns an image error body (HTTP 200, error_info image_*) into OcrInputError', async () => {
    next = { serviceError: { id: 'image_no_content', message: 'Content not found' } };
    await expect(reader().read(image)).rejects.toThrow(new OcrInputError(`${MATHPIX_READER}: image_no_content: Content not found`));
  });

  it('turns a service fault body into OcrReaderError', async () => {
    next = { serviceError: { id: 'sys_exception', message: 'Server error', status: 500 } };
    await expect(reader().read(image)).rejects.toThrow(new OcrReaderError(`${MATHPIX_READER}: HTTP 500: sys_exception: Server error`));
  });

  it('fails with OcrReaderError on bad credentials (401) and never shows the key', async () => {
    const wrongKey = 'mpx-wrong-key-fedcba9876543210';
    const error = await reader(wrongKey).read(image).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OcrReaderError);
    expect((error as Error).message).toBe(`${MATHPIX_READER}: HTTP 401: http_unauthorized: Invalid credentials`);
    expect((error as Error).message).not.toContain(wrongKey);
  });

  it('names the Retry-After of a 429 and fails with OcrReaderError on 5xx', async () => {
    next = { status: 429, message: 'Too many requests', retryAfterSeconds: 3 };
    await expect(reader().read(image)).rejects.toThrow(new OcrReaderError(`${MATHPIX_READER}: HTTP 429: http_max_requests: Too many requests (retry after 3000 ms)`));
    next = { status: 503, message: 'Service unavailable' };
    await expect(reader().read(image)).rejects.toThrow(OcrReaderError);
  });

  it('gives up on a hung service with OcrTimeoutError at its deadline, or at once when the caller aborts', async () => {
    next = { hang: true };
    const started = Date.now();
    await expect(reader().read(image, { timeoutMs: 300 })).rejects.toThrow(new OcrTimeoutError(`${MATHPIX_READER}: no answer within 300 ms`));
    expect(Date.now() - started).toBeLessThan(2_000);
    const caller = new AbortController();
    const pending = reader().read(image, { signal: caller.signal });
    setTimeout(() => caller.abort(), 50);
    await expect(pending).rejects.toThrow(OcrTimeoutError);
  });

  it('refuses bytes that are no image before any call, and reads nothing once closed', async () => {
    const bytes = new TextEncoder().encode('not an image');
    await expect(reader().read(bytes)).rejects.toThrow(new OcrInputError('image cannot be decoded: Input buffer contains unsupported image format'));
    expect(server.requests.filter((r) => String(r.body['src']).includes(Buffer.from(bytes).toString('base64')))).toEqual([]);
    const closed = reader();
    await closed.close();
    await expect(closed.read(image)).rejects.toThrow(OcrReaderClosedError);
  });
});
