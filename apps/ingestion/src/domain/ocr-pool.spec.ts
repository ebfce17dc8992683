import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundledEnglishDataPath, OcrPoolClosedError, TesseractOcrPool } from './ocr-pool.js';
import { renderTextImage } from './test-support/render-text.js';

describe('TesseractOcrPool', () => {
  it('reads the bundled English traineddata from the installed package', () => {
    expect(existsSync(join(bundledEnglishDataPath('best_int'), 'eng.traineddata.gz'))).toBe(true);
    expect(existsSync(join(bundledEnglishDataPath('standard'), 'eng.traineddata.gz'))).toBe(true);
  });

  it('creates workers lazily, up to its size, reuses them, and reads printed text with confidence', async () => {
    const pool = new TesseractOcrPool({ size: 2 });
    try {
      expect(pool.workerCount).toBe(0);
      const pages = await Promise.all([
        renderTextImage(['Solve for x: 3x + 7 = 22']),
        renderTextImage(['A train travels 240 km in 3 hours.']),
        renderTextImage(['Find the area of a circle of radius 5 m.']),
      ]);
      const results = await Promise.all(pages.map((page) => pool.recognise(page)));
      expect(pool.workerCount).toBe(2);
      expect(results[0]?.text.trim()).toBe('Solve for x: 3x + 7 = 22');
      expect(results[1]?.text.trim()).toBe('A train travels 240 km in 3 hours.');
      expect(results[2]?.text.trim()).toBe('Find the area of a circle of radius 5 m.');
      for (const result of results) expect(result.confidence).toBeGreaterThan(70);
      // Nothing was written next to the process: traineddata caching is off.
      expect(existsSync(join(process.cwd(), 'eng.traineddata'))).toBe(false);
    } finally {
      await pool.shutdown();
    }
    expect(pool.workerCount).toBe(0);
  });

  it('refuses work after shutdown', async () => {
    const pool = new TesseractOcrPool({ size: 1 });
    await pool.shutdown();
    await expect(pool.recognise(await renderTextImage(['x']))).rejects.toBeInstanceOf(OcrPoolClosedError);
  });

  it('fails a start against missing traineddata instead of reaching for the network', async () => {
    const pool = new TesseractOcrPool({ size: 1, langPath: '/nonexistent/tessdata' });
    try {
      await expect(pool.recognise(await renderTextImage(['x']))).rejects.toBeDefined();
      expect(pool.workerCount).toBe(0);
    } finally {
      await pool.shutdown();
    }
  });
});
