import { Readable } from 'node:stream';
import { LibraryFileTextError, LibraryFileTooLargeError, type LibraryPart, libraryParts, type OversizedEntry } from './library-parts.js';

/** The file as a stream of byte chunks of `size` bytes (cutting lines and UTF-8 characters anywhere). */
function chunked(text: string, size: number): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));
}

async function collect(source: AsyncGenerator<LibraryPart | OversizedEntry>): Promise<(LibraryPart | OversizedEntry)[]> {
  const out: (LibraryPart | OversizedEntry)[] = [];
  for await (const item of source) out.push(item);
  return out;
}

const bib = (n: number, extra = ''): string => `@article{key${n},\n  title = {Über Graphen ${n}${extra}},\n  year = {2020}\n}\n\n`;
const ris = (n: number): string => `TY  - JOUR\r\nTI  - Paper ${n}\r\nPY  - 2020\r\nER  - \r\n`;

describe('splitting a library file into parts of whole entries (streamed, never buffered whole)', () => {
  it('keeps every BibTeX entry whole and in order, whatever the chunk boundaries (mid-line, mid-character)', async () => {
    const file = `% my library\n${Array.from({ length: 40 }, (_, i) => bib(i)).join('')}`;
    for (const chunk of [1, 7, 64, 100_000]) {
      const items = await collect(libraryParts(chunked(file, chunk), 'bibtex', { maxBytes: 1_000_000, partBytes: 400 }));
      const parts = items.filter((i): i is LibraryPart => i.kind === 'part');
      expect(items.filter((i) => i.kind === 'oversized')).toEqual([]);
      expect(parts.map((p) => p.part)).toEqual(parts.map((_, i) => i + 1));
      expect(parts.every((p) => new TextEncoder().encode(p.text).length <= 400)).toBe(true);
      // Every part starts at an entry (the leading comment travels with the first), and nothing is lost.
      expect(parts.slice(1).every((p) => p.text.startsWith('@article{'))).toBe(true);
      expect(parts.map((p) => p.text).join('')).toBe(file);
      expect(parts.map((p) => p.text).join('').match(/@article/g)).toHaveLength(40);
    }
  });

  it('starts every BibTeX part with the @string macros defined before it, so each part reads on its own as the whole file would', async () => {
    const macros = '@string{ jml = "Journal of Machine Learning" }\n@STRING(nips = {NeurIPS})\n';
    const entry = (n: number): string => `@article{key${n},\n  title = {Paper ${n}},\n  journal = ${n % 2 === 0 ? 'jml' : 'nips'}\n}\n`;
    const file = `${macros}${Array.from({ length: 30 }, (_, i) => entry(i)).join('')}`;
    const parts = (await collect(libraryParts(chunked(file, 13), 'bibtex', { maxBytes: 1_000_000, partBytes: 400 }))) as LibraryPart[];
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.every((p) => p.text.startsWith(macros))).toBe(true);
    expect(parts.every((p) => new TextEncoder().encode(p.text).length <= 400)).toBe(true);
    // Every entry once, in order, after the macros.
    expect(parts.flatMap((p) => p.text.match(/key\d+/g) ?? [])).toEqual(Array.from({ length: 30 }, (_, i) => `key${i}`));
  });

  it('splits RIS after each ER line, CRLF kept', async () => {
    const file = Array.from({ length: 10 }, (_, i) => ris(i)).join('');
    const parts = (await collect(libraryParts(chunked(file, 5), 'ris', { maxBytes: 1_000_000, partBytes: 130 }))) as LibraryPart[];
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.text.endsWith('ER  - \r\n'))).toBe(true);
    expect(parts.map((p) => p.text).join('')).toBe(file);
  });

  it('reports an entry larger than a part with the line it starts on, sends the others, and never holds it (even one endless line)', async () => {
    const huge = `@misc{big,\n  abstract = {${'x'.repeat(5_000)}}\n}\n`;
    const file = `${bib(1)}${huge}${bib(2)}`;
    const items = await collect(libraryParts(chunked(file, 333), 'bibtex', { maxBytes: 1_000_000, partBytes: 1_000 }));
    expect(items.filter((i) => i.kind === 'oversized')).toEqual([{ kind: 'oversized', line: 6, bytes: new TextEncoder().encode(huge).length }]);
    const sent = items.flatMap((i) => (i.kind === 'part' ? [i.text] : [])).join('');
    expect(sent).toContain('key1');
    expect(sent).toContain('key2');
    expect(sent).not.toContain('xxxx');
  });

  it('refuses a NUL (no reference can store it) naming its line, in a short line or one longer than a part', async () => {
    const file = `${bib(1)}${bib(2, '\u0000')}${bib(3)}`;
    const refused = await collect(libraryParts(chunked(file, 7), 'bibtex')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LibraryFileTextError);
    expect((refused as LibraryFileTextError).line).toBe(7);
    const endless = `${bib(1)}@misc{long,\n  note = {${'x'.repeat(300)}\u0000${'y'.repeat(300)}}\n}\n`;
    const long = await collect(libraryParts(chunked(endless, 64), 'bibtex', { maxBytes: 10_000, partBytes: 200 })).catch((error: unknown) => error);
    expect(long).toMatchObject({ name: 'LibraryFileTextError', line: 7 });
  });

  it('refuses past the size limit as soon as it is passed, having read no further', async () => {
    let chunksRead = 0;
    function* endless(): Generator<string> {
      for (;;) {
        chunksRead += 1;
        yield bib(chunksRead);
      }
    }
    await expect(collect(libraryParts(Readable.from(endless()), 'bibtex', { maxBytes: 10_000, partBytes: 1_000 }))).rejects.toBeInstanceOf(LibraryFileTooLargeError);
    // Up to the limit, plus what the stream reads ahead (its 16-object buffer).
    expect(chunksRead).toBeLessThan(10_000 / bib(1).length + 20);
  });

  it('says how far it has read with each part (progress)', async () => {
    const file = Array.from({ length: 20 }, (_, i) => bib(i)).join('');
    const parts = (await collect(libraryParts(chunked(file, 50), 'bibtex', { maxBytes: 1_000_000, partBytes: 300 }))) as LibraryPart[];
    const read = parts.map((p) => p.bytesRead);
    expect(read).toEqual([...read].sort((a, b) => a - b));
    expect(read.at(-1)).toBe(new TextEncoder().encode(file).length);
  });
});
