import { minimalPdf } from '../test-support/minimal-pdf.js';
import { chunkIdOf, chunkText } from './chunker.js';
import { normaliseSourceText, titleFromText } from './normalise.js';
import { pdfToText } from './pdf-text.js';

describe('source text', () => {
  it('normalises: NFKC, line breaks, control characters, spaces, blank lines', () => {
    expect(normaliseSourceText('  ﬁne\u0000 ｔext\r\n\r\n\r\n\tsecond   line  ')).toBe('fine text\n\nsecond line');
    expect(normaliseSourceText(normaliseSourceText('a\n\n\nb'))).toBe('a\n\nb');
    expect(titleFromText('\nPhotosynthesis basics\nmore')).toBe('Photosynthesis basics');
  });

  it('chunks whole paragraphs up to the limit, splits long ones at sentences, and is deterministic', () => {
    const paragraph = (n: number): string => `Paragraph ${n} says something. It has two sentences.`;
    const text = [1, 2, 3, 4].map(paragraph).join('\n\n');
    expect(chunkText(text, { maxChars: 120 })).toEqual([`${paragraph(1)}\n\n${paragraph(2)}`, `${paragraph(3)}\n\n${paragraph(4)}`]);
    const long = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const chunks = chunkText(long, { maxChars: 200 });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.length <= 200 && c.endsWith('.'))).toBe(true);
    expect(chunkText(long, { maxChars: 200 })).toEqual(chunks);
  });

  it('gives stable chunk ids: same source, position and text, same id', () => {
    const id = chunkIdOf('s1', 0, 'text');
    expect(id).toMatch(/^chk_[0-9a-f]{24}$/);
    expect(chunkIdOf('s1', 0, 'text')).toBe(id);
    expect(chunkIdOf('s1', 0, 'other text')).not.toBe(id);
    expect(chunkIdOf('s2', 0, 'text')).not.toBe(id);
  });

  it('extracts the text of a PDF, plain or Flate-compressed, Tj and TJ', async () => {
    const lines = ['Photosynthesis (in plants) converts light.', 'Chlorophyll absorbs red and blue light.'];
    for (const compress of [false, true]) {
      expect(await pdfToText(minimalPdf(lines, { compress }))).toBe(lines.join('\n'));
    }
    await expect(pdfToText(Buffer.from('not a pdf'))).rejects.toThrow(/not a PDF/);
    // A header and nothing a reader can use: refused, not read as empty text.
    await expect(pdfToText(Buffer.from('%PDF-1.7\ngarbage without objects\n'))).rejects.toThrow();
  });
});
