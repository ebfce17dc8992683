import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { ingestProblem, type IngestionPorts } from './ingest-problem.js';
import { TesseractOcrPool } from './ocr-pool.js';
import { type HostResolver, safeFetch } from './safe-fetch.js';
import { degrade } from './test-support/degrade.js';
import { renderTextImage } from './test-support/render-text.js';

describe('ingestProblem', () => {
  const ocr = new TesseractOcrPool({ size: 1 });
  let server: Server;
  let base: string;
  let problemPng: Buffer;
  const resolver: HostResolver = (hostname) =>
    hostname === 'problems.test' ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : Promise.reject(new Error('ENOTFOUND'));
  let ports: IngestionPorts;

  beforeAll(async () => {
    problemPng = await renderTextImage(['A rectangle has a length of 12 cm', 'and a width of 5 cm. Find its area.']);
    server = createServer((req, res) => {
      if (req.url === '/problem.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(problemPng);
      } else if (req.url === '/problem.txt') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Find the derivative of f(x) = x³');
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://problems.test:${(server.address() as AddressInfo).port}`;
    ports = { ocr, fetch: (url) => safeFetch(url, { resolver, allowAddressClasses: ['loopback'] }) };
  });

  afterAll(async () => {
    await ocr.shutdown();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('signs a typed problem', async () => {
    const outcome = await ingestProblem({ kind: 'text', text: 'Find the derivative of f(x) = x³' }, ports);
    expect(outcome).toMatchObject({
      status: 'normalised',
      signature: { normalisedText: 'find the derivative of f(x)=x^3', topicTags: { subject: 'calculus' } },
      media: { kind: 'text' },
    });
  });

  it('reads an uploaded image: OCR text, hashes, quality, topic', async () => {
    const outcome = await ingestProblem({ kind: 'image', bytes: problemPng }, ports);
    if (outcome.status !== 'normalised') throw new Error(`rejected: ${outcome.detail}`);
    expect(outcome.signature.normalisedText).toBe('a rectangle has a length of 12 cm and a width of 5 cm. find its area');
    expect(outcome.signature.topicTags.subject).toBe('geometry');
    expect(outcome.signature.textDominant).toBe(true);
    expect(outcome.signature.quality).toBeGreaterThanOrEqual(90);
    expect(outcome.media).toMatchObject({ kind: 'image', sourceType: 'png', width: 900 });
  });

  it('reads a large printed equation whose glyph boxes tesseract reports at the line height (no exponent invented)', async () => {
    // Tesseract gives "= 15" one tall box for every glyph: judged against it, "-10" looked raised and
    // the first pass made an exponent of it; that doubtful reading must not veto the clean second pass.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="260"><rect width="100%" height="100%" fill="white"/>
      <text x="60" y="150" font-family="DejaVu Sans, sans-serif" font-size="64" fill="black">5x - 10 = 15</text></svg>`;
    const png = await sharp(Buffer.from(svg)).png().toBuffer();
    const outcome = await ingestProblem({ kind: 'image', bytes: png }, ports);
    if (outcome.status !== 'normalised') throw new Error(`rejected: ${outcome.detail}`);
    expect(outcome.signature.maths).toMatchObject({ canonical: '(= (+ (* 5 v0) -10) 15)', intent: 'solve' });
  });

  it('gives a tilted JPEG copy the same text and a near pHash', async () => {
    const original = await ingestProblem({ kind: 'image', bytes: problemPng }, ports);
    const copy = await ingestProblem({ kind: 'image', bytes: await degrade.jpeg(await degrade.rotate(problemPng, 2.5), 60) }, ports);
    if (original.status !== 'normalised' || copy.status !== 'normalised') throw new Error('rejected');
    expect(copy.signature.textSha256).toBe(original.signature.textSha256);
    expect(copy.signature.imageSha256).not.toBe(original.signature.imageSha256);
    const distance = (BigInt(`0x${copy.signature.phash ?? '0'}`) ^ BigInt(`0x${original.signature.phash ?? '0'}`)).toString(2).replace(/0/g, '').length;
    expect(distance).toBeLessThan(8);
  });

  it('fetches a URL safely, image or text', async () => {
    const image = await ingestProblem({ kind: 'url', url: `${base}/problem.png` }, ports);
    expect(image).toMatchObject({ status: 'normalised', sourceUrl: `${base}/problem.png`, media: { kind: 'image' } });
    const text = await ingestProblem({ kind: 'url', url: `${base}/problem.txt` }, ports);
    expect(text).toMatchObject({ status: 'normalised', signature: { topicTags: { subject: 'calculus' } }, media: { kind: 'text' } });
  });

  it('rejects with reason codes, never by throwing', async () => {
    const blank = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } }).png().toBuffer();
    const cases = [
      [{ kind: 'text', text: '   \u200b ' }, 'empty'],
      [{ kind: 'text', text: 'x'.repeat(100_000) }, 'too_large'],
      [{ kind: 'image', bytes: blank }, 'empty'],
      [{ kind: 'image', bytes: Buffer.from('GIF89a....') }, 'unsupported_type'],
      [{ kind: 'image', bytes: problemPng.subarray(0, 100) }, 'unreadable'],
      [{ kind: 'url', url: 'http://169.254.169.254/latest/meta-data/' }, 'unsafe_url'],
      [{ kind: 'url', url: 'gopher://problems.test/x' }, 'unsafe_url'],
      [{ kind: 'url', url: `${base}/missing.png` }, 'fetch_failed'],
    ] as const;
    for (const [input, reason] of cases) {
      const outcome = await ingestProblem(input, ports);
      expect({ input: input.kind, outcome: outcome.status, reason: outcome.status === 'rejected' ? outcome.reason : null }).toEqual({
        input: input.kind,
        outcome: 'rejected',
        reason,
      });
    }
  });
});
