import sharp from 'sharp';
import { blankPage, scaledLineReader } from '../test-support/scaled-line-reader.js';
import { readProblem } from './read-problem.js';
import { rescaled, sameReading, secondScale } from './second-scale.js';

/** Reads `texts.first` at `unsureWidth`, its character at `unsureAt` at 0.6 and nothing else listed (refused before any maths is weighed), and `texts.second` sure at any other width. */
function scaleDependentReader(unsureWidth: number, texts: { readonly first: string; readonly second: string }, unsureAt: number): ReturnType<typeof scaledLineReader> {
  return scaledLineReader(40, (width) => (width === unsureWidth ? { text: texts.first, char: (i) => ({ confidence: i === unsureAt ? 0.6 : 0.999 }) } : { text: texts.second }));
}

describe('secondScale', () => {
  it('reads a page again twice as large while it stays within the rendition bound, else at half', () => {
    expect(secondScale(400, 100)).toBe(2);
    expect(secondScale(1024, 300)).toBe(2);
    expect(secondScale(1125, 235)).toBe(0.5);
    expect(secondScale(300, 1500)).toBe(0.5);
  });
});

describe('rescaled', () => {
  it('resamples the pixels and their PNG together', async () => {
    const twice = await rescaled(await blankPage(), 2);
    expect([twice.width, twice.height, twice.rgb.length]).toEqual([400, 120, 400 * 120 * 3]);
    expect(await sharp(twice.png).metadata()).toMatchObject({ width: 400, height: 120 });
  });
});

describe('sameReading', () => {
  it('takes spacing, exponent marks, brackets and "×" against "x" as one reading', () => {
    expect(sameReading('Simplify: 11n4 + 4n4', 'simplify: 11n^4+4n^4')).toBe(true);
    expect(sameReading('Calculate: 45 x 8 - 17', 'Calculate: 45 × 8 - 17')).toBe(true);
    expect(sameReading('Evaluate √36 + 31', 'evaluate sqrt(36)+31')).toBe(true);
  });

  it('holds other digits or a lost letter to be another reading', () => {
    expect(sameReading('Solve for x: 5 + 34 = 30', 'Solve for x: 5x + 34 = 30')).toBe(false);
    expect(sameReading('Work out 55 ÷ 5 + 15', 'Work out 55 ÷ 5 + 16')).toBe(false);
  });
});

describe('readProblem at a second scale (issue 25)', () => {
  it('reads a page refused as read again at twice its size, and takes that reading where it reads the same', async () => {
    const reader = scaleDependentReader(200, { first: 'Solve 2x - 3 = 7', second: 'Solve 2x - 3 = 7' }, 9);
    expect(await readProblem(await blankPage(), 0, reader)).toMatchObject({ status: 'read', reading: { text: 'Solve 2x - 3 = 7' } });
    expect(reader.widths).toEqual([200, 400]);
  });

  it('keeps the first refusal where the second scale reads other maths, however sure', async () => {
    const reader = scaleDependentReader(200, { first: 'Solve 2x - 3 = 7', second: 'Solve 2 - 3 = 7' }, 9);
    expect(await readProblem(await blankPage(), 0, reader)).toMatchObject({ status: 'unreadable', reason: expect.stringContaining('read unsure: "-" 0.60') });
    expect(reader.widths).toEqual([200, 400]);
  });

  it('reads a page accepted as read once', async () => {
    const reader = scaleDependentReader(400, { first: 'Solve 2x - 3 = 7', second: 'Solve 2x - 3 = 7' }, 9);
    expect(await readProblem(await blankPage(), 0, reader)).toMatchObject({ status: 'read' });
    expect(reader.widths).toEqual([200]);
  });
});
