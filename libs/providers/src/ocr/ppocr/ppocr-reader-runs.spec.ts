import { renderProblemPng } from '@openpaw/testkit';
import sharp from 'sharp';
import { OnnxWorkerPool, type TensorData } from './onnx-worker-pool.js';
import type { OcrReading } from '../port.js';
import { PpOcrReader } from './ppocr-reader.js';

const run = OnnxWorkerPool.prototype.run;

/** The model runs one read makes, by model (the real PP-OCRv4 models, one worker). */
async function runsOfOneRead(reader: PpOcrReader, image: Buffer): Promise<{ text: string; runs: Record<string, number> }> {
  const runs: Record<string, number> = {};
  OnnxWorkerPool.prototype.run = function (this: OnnxWorkerPool, model: string, input: TensorData, timeoutMs: number) {
    runs[model] = (runs[model] ?? 0) + 1;
    return run.call(this, model, input, timeoutMs);
  };
  try {
    const reading = await reader.read(image, { secondLook: 'on-request' });
    return { text: reading.lines.map((l) => l.text).join('\n'), runs };
  } finally {
    OnnxWorkerPool.prototype.run = run;
  }
}

describe('PpOcrReader: each way up is detected and recognised once per read (issue 25, latency)', () => {
  let reader: PpOcrReader;
  let upright: Buffer;

  beforeAll(async () => {
    reader = new PpOcrReader({ workers: 1, timeoutMs: 20_000 });
    upright = await renderProblemPng('Solve 3x + 4 = 19');
  });

  afterAll(() => reader.close());

  it.each([90, 270])('reads a page turned %i° with one recognition run and at most three detections', async (degrees) => {
    // A quarter turn one way and the classifier's half turn is the other quarter turn: read once, not twice.
    const { text, runs } = await runsOfOneRead(reader, await sharp(upright).rotate(degrees).png().toBuffer());
    expect(text.replace(/\s+/g, '')).toBe('Solve3x+4=19');
    expect(runs['rec']).toBe(1);
    expect(runs['det']).toBeLessThanOrEqual(3);
  }, 60_000);

  it('asks the orientation classifier about a page\'s widest lines in one run', async () => {
    const page = await sharp({ create: { width: 900, height: 520, channels: 3, background: '#ffffff' } })
      .composite([
        { input: upright, top: 0, left: 0 },
        { input: await renderProblemPng('Then add 12 + 30'), top: 260, left: 0 },
      ])
      .png()
      .toBuffer();
    const { text, runs } = await runsOfOneRead(reader, page);
    expect(text).toContain('Solve');
    expect(runs['cls']).toBe(1);
  }, 60_000);

  it('recognises a page\'s lines of the same input width in one run, read as each line in a run of its own', async () => {
    // Two short lines: each fits the recogniser's narrowest input (320 columns), so they share one run.
    const page = await sharp({ create: { width: 900, height: 520, channels: 3, background: '#ffffff' } })
      .composite([
        { input: await renderProblemPng('x = 4'), top: 0, left: 0 },
        { input: await renderProblemPng('y = 7'), top: 260, left: 0 },
      ])
      .png()
      .toBuffer();
    const { runs } = await runsOfOneRead(reader, page);
    expect(runs['rec']).toBe(1);
    const batched = await reader.read(page, { secondLook: 'on-request' });
    const lineByLine = await readingEachLineAlone(reader, page);
    expect(batched.lines.map((l) => l.text)).toEqual(lineByLine.lines.map((l) => l.text));
    for (const [i, line] of batched.lines.entries()) expect(line.confidence).toBeCloseTo(lineByLine.lines[i]!.confidence, 4);
  }, 60_000);
});

/** The page read with every recognition batch split into runs of one line each (as before lines shared runs). */
async function readingEachLineAlone(reader: PpOcrReader, image: Buffer): Promise<OcrReading> {
  OnnxWorkerPool.prototype.run = async function (this: OnnxWorkerPool, model: string, input: TensorData, timeoutMs: number) {
    const [batch = 1, ...each] = input.dims;
    if (model !== 'rec' || batch === 1) return run.call(this, model, input, timeoutMs);
    const size = input.data.length / batch;
    const outputs = [];
    for (let k = 0; k < batch; k += 1) outputs.push(await run.call(this, model, { data: input.data.slice(k * size, (k + 1) * size), dims: [1, ...each] }, timeoutMs));
    const data = new Float32Array(outputs.reduce((n, o) => n + o.data.length, 0));
    let at = 0;
    for (const o of outputs) {
      data.set(o.data, at);
      at += o.data.length;
    }
    return { data, dims: [batch, ...outputs[0]!.dims.slice(1)] };
  };
  try {
    return await reader.read(image, { secondLook: 'on-request' });
  } finally {
    OnnxWorkerPool.prototype.run = run;
  }
}
