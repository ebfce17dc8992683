import { MathpixReader } from '@openpaw/providers/ocr';
import { renderProblemPng, startMathpixWireServer, type OcrWireAnswer, type MathpixServiceError, type OcrWireServer } from '@openpaw/testkit';
import { judgeReading } from './read-problem.js';

const CREDENTIALS = { appId: 'openpaw-test', appKey: 'mpx-key-0123456789abcdef' };

/** Mathpix's answers (a local server speaking v3/text) judged as ingestion judges every reading. */
describe('judgeReading of a Mathpix reading (v3/text wire server)', () => {
  let server: OcrWireServer;
  let next: OcrWireAnswer<MathpixServiceError>;
  let image: Buffer;

  beforeAll(async () => {
    image = await renderProblemPng('Solve for y: 5y - 4 = 2y + 11');
    server = await startMathpixWireServer(CREDENTIALS, () => next);
  });
  afterAll(() => server.close());

  const read = async (answer: OcrWireAnswer<MathpixServiceError>) => {
    next = answer;
    return judgeReading(await new MathpixReader({ ...CREDENTIALS, baseUrl: server.baseUrl }).read(image));
  };

  it('reads prose with its maths spans, and the LaTeX structure a line reader cannot see', async () => {
    const line = { box: { x0: 40, y0: 30, x1: 860, y1: 110 }, confidence: 0.996 };
    expect(await read({ width: 900, height: 200, lines: [{ ...line, text: 'Solve for \\( y \\): \\( 5 y-4=2 y+11 \\)' }] })).toMatchObject({
      status: 'read',
      reading: { text: 'Solve for y: 5y-4=2y+11', reader: 'mathpix/v3-text' },
    });
    expect(await read({ width: 900, height: 200, lines: [{ ...line, text: 'x^{2}=\\frac{49}{4}', type: 'math' }] })).toMatchObject({ status: 'read', reading: { text: 'x^2=49/4' } });
  });

  it('refuses what Mathpix read unsure, and LaTeX it cannot write as plain maths', async () => {
    const line = { box: { x0: 40, y0: 30, x1: 860, y1: 110 } };
    expect(await read({ width: 900, height: 200, lines: [{ ...line, confidence: 0.41, text: '5 y-4=2 y+11', type: 'math' }] })).toMatchObject({ status: 'unreadable' });
    expect(await read({ width: 900, height: 200, lines: [{ ...line, confidence: 0.99, text: '\\sum_{k=1}^{n} k', type: 'math' }] })).toMatchObject({
      status: 'unreadable',
      reason: expect.stringContaining('the LaTeX command \\sum'),
    });
  });
});
