import sharp from 'sharp';
import { STEPS_DOCUMENT_FORMAT, type StepsDocument } from '@openpaw/contracts';
import { FRAME_HEIGHT, FRAME_WIDTH, framesFor, frameSvg, plainMath, renderFrame, wrap } from './frame-renderer.js';

const doc: StepsDocument = {
  format: STEPS_DOCUMENT_FORMAT,
  problem: '2x + 3 = 7',
  subject: 'algebra',
  steps: [
    { title: 'Subtract 3', detail: '\\(2x = 4\\)' },
    { title: 'Divide by 2', detail: 'x = 4 / 2 = 2' },
  ],
  finalAnswer: 'x = 2',
  model: 'local/deterministic',
  promptVersion: 'solve-v1',
};

describe('frame renderer', () => {
  it('draws a 1280×720 PNG', async () => {
    const png = await renderFrame(framesFor(doc)[1]!);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const meta = await sharp(png).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'png', width: FRAME_WIDTH, height: FRAME_HEIGHT });
  });

  it('draws the text (the frame is not blank)', async () => {
    const { data, info } = await sharp(await renderFrame(framesFor(doc)[0]!)).greyscale().raw().toBuffer({ resolveWithObject: true });
    // Light pixels of text on the dark background, inside the body area.
    let light = 0;
    for (let y = 150; y < 450; y++) for (let x = 80; x < 800; x++) if ((data[y * info.width + x] ?? 0) > 128) light++;
    expect(light).toBeGreaterThan(500);
  });

  it('makes a frame for the problem, each step and the final answer', () => {
    expect(framesFor(doc).map((f) => [f.label, f.heading, f.body])).toEqual([
      ['PROBLEM', 'Problem', '2x + 3 = 7'],
      ['STEP 1 OF 2', 'Subtract 3', '2x = 4'],
      ['STEP 2 OF 2', 'Divide by 2', 'x = 4 / 2 = 2'],
      ['FINAL ANSWER', 'Final answer', 'x = 2'],
    ]);
  });

  it('escapes text in the SVG, so model text cannot add elements or references', () => {
    const svg = frameSvg({ label: 'STEP', heading: '<image href="file:///etc/passwd"/>', body: 'a & b < c', footer: '"x"' });
    expect(svg).not.toContain('<image');
    expect(svg).toContain('&lt;image href=&quot;file:///etc/passwd&quot;/&gt;');
    expect(svg).toContain('a &amp; b &lt; c');
  });

  it('wraps long text and cuts it with an ellipsis', () => {
    expect(wrap('one two three four five', 9, 5)).toEqual(['one two', 'three', 'four five']);
    expect(wrap('one two three four five', 9, 2)).toEqual(['one two', 'three…']);
    expect(wrap('abcdefghijkl', 5, 5)).toEqual(['abcde', 'fghij', 'kl']);
  });

  it('reads LaTeX as plain text', () => {
    expect(plainMath('\\(x = \\frac{7}{3}\\)')).toBe('x = 7/3');
    expect(plainMath('\\[\\sqrt{x+1} \\cdot 2 \\le \\left( y \\right)\\]')).toBe('√(x+1) · 2 ≤ ( y )');
    expect(plainMath('$x^2$ costs $5 and $10')).toBe('x^2 costs $5 and $10');
  });
});
