import { OcrReaderError, OcrTimeoutError } from '../port.js';
import { OnnxWorkerPool } from './onnx-worker-pool.js';

/** A worker that opens no model: it echoes a run's input doubled, or never answers one whose first value is negative (a hung inference). */
const ECHO_OR_HANG = `
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
process.on('message', (job) => {
  if (job.data[0] < 0) return;
  process.send({ id: job.id, data: Float32Array.from(job.data, (v) => v * 2), dims: job.dims });
});
`;

const tensor = (first: number): { data: Float32Array; dims: number[] } => ({ data: Float32Array.from([first, 1, 2]), dims: [3] });

describe('OnnxWorkerPool', () => {
  it('kills a worker whose run passes its deadline, fails that run, and serves the next run from a fresh worker', async () => {
    const pool = new OnnxWorkerPool({ models: {}, size: 1, workerSource: ECHO_OR_HANG });
    try {
      await expect(pool.run('any', tensor(1), 20_000)).resolves.toMatchObject({ data: Float32Array.from([2, 2, 4]) });
      await expect(pool.run('any', tensor(-1), 300)).rejects.toBeInstanceOf(OcrTimeoutError);
      await expect(pool.run('any', tensor(3), 20_000)).resolves.toMatchObject({ data: Float32Array.from([6, 2, 4]) });
    } finally {
      await pool.close();
    }
  });

  it('fails runs with the reason when the models cannot be opened, instead of respawning for ever', async () => {
    const pool = new OnnxWorkerPool({ models: { det: '/nonexistent/model.onnx' }, size: 1 });
    try {
      await expect(pool.run('det', tensor(1), 20_000)).rejects.toBeInstanceOf(OcrReaderError);
      await expect(pool.run('det', tensor(1), 20_000)).rejects.toThrow(/cannot be loaded/);
    } finally {
      await pool.close();
    }
  });
});
