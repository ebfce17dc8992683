import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLibraryFile } from '../read-library-file.js';
import { parseBibtex } from './parse-bibtex.js';

const DEMO = join(import.meta.dirname, '../../../sample-library/openpaw-demo.bib');

describe('parseBibtex (Citation.js)', () => {
  const read = (bib: string) => readLibraryFile('bibtex', bib);

  it('reads braced, quoted, numeric, macro and concatenated values, @string and @comment, () bodies', () => {
    const { entries, errors } = parseBibtex(`
      @comment{ignored {nested} text}
      @string{ jml = "Journal of " }
      @preamble{ "\\newcommand{\\noop}[1]{}" }
      @Article{key1,
        title = {A {Nested {Brace}} Title},
        journal = jml # "Machine Learning",
        year = 2014,
        month = mar,
        note = "quoted {with "inner" quote}",
      }
      @misc(key2, title = "Round")
    `);
    expect(errors).toEqual([]);
    expect(entries.map((e) => [e.type, e.key])).toEqual([
      ['article', 'key1'],
      ['misc', 'key2'],
    ]);
    expect(entries[0]!.fields).toEqual({ title: 'A {Nested {Brace}} Title', journal: 'Journal of Machine Learning', year: '2014', month: '03', note: 'quoted {with "inner" quote}' });
    expect(entries[0]!.csl).toMatchObject({ title: 'A Nested Brace Title', 'container-title': 'Journal of Machine Learning', issued: { 'date-parts': [[2014, 3]] } });
    expect(entries[1]!.csl.title).toBe('Round');
  });

  it('reports a broken entry and goes on with the next', () => {
    const { entries, errors } = parseBibtex('@article{bad, title = {unbalanced }\n@article{good, title={Fine}}');
    expect(entries.map((e) => e.key)).toEqual(['good']);
    expect(errors).toEqual([{ entry: 0, reason: expect.stringContaining('@article{bad') }]);
  });

  it('reads past a broken entry with the @string macros defined before it, and reports each broken entry at its place', () => {
    const entries = Array.from({ length: 9 }, (_, i) => `@article{e${i}, title = {Paper ${i}}, journal = jn}`);
    entries[3] = '@article{broken3, title = {no closing brace, journal = jn}';
    entries[7] = '@article{broken7, title = {x} year = 2020}';
    const { references, skipped } = read(`@string{jn = "Journal of Tests"}\n${entries.join('\n')}`);
    expect(references.map((r) => r.citationKey)).toEqual(['e0', 'e1', 'e2', 'e4', 'e5', 'e6', 'e8']);
    expect(references.every((r) => r.venue === 'Journal of Tests')).toBe(true);
    expect(skipped.map((s) => [s.entry, s.reason.split(':')[0]])).toEqual([
      [3, '@article{broken3'],
      [7, '@article{broken7'],
    ]);
    // The missing comma between `title = {x}` and `year` is said in words a user can act on.
    expect(skipped[1]!.reason).toMatch(/a comma is missing between two fields/);
  });

  it('says a comma missing after the entry key in words, alone in a file or among good entries', () => {
    // Before: "This format is not supported or recognized" (Citation.js guessed the format and the piece failed its guess).
    for (const file of ['@article{b title={Graph networks}, year=2020}', '@article{a, title={A}}\n@article{b title={Graph networks}, year=2020}\n@article{c, title={C}}']) {
      const { references, skipped } = read(file);
      expect(skipped).toEqual([{ entry: file.startsWith('@article{a') ? 1 : 0, reason: expect.stringMatching(/^@article\{b: .*a comma is missing after the entry key; add it/) }]);
      expect(references.map((r) => r.citationKey)).toEqual(file.startsWith('@article{a') ? ['a', 'c'] : []);
    }
  });

  it('reads a file of macros and comments only as no entries, and no error', () => {
    expect(parseBibtex('@string{jn = "Journal of Tests"}\n@comment{nothing to import yet}\n')).toEqual({ entries: [], errors: [] });
  });

  it('splits author lists on top-level "and" only, with particles and suffixes', () => {
    const [ref] = read('@article{k, title={T}, author = {Smith, John and {Barnes and Noble} AND Doe, Jane and van der Berg, Jr., Jan and others}}').references;
    expect(ref!.authors).toEqual(['John Smith', 'Barnes and Noble', 'Jane Doe', 'Jan van der Berg Jr.']);
  });

  it('decodes LaTeX to text', () => {
    const [ref] = read(`@article{k, title = {MICCAI 2015 -- pages 234--241 \\& \\emph{more}~here},
      author = {Veli{\\v{c}}kovi{\\'c}, Petar and Li{\\\`o}, Pietro and J{\\"u}rgen, Hans and {\\L}ukasz, Kaiser and Stra{\\ss}e, Anna}}`).references;
    expect(ref!.title).toBe('MICCAI 2015 – pages 234–241 & more here');
    expect(ref!.authors).toEqual(['Petar Veličković', 'Pietro Liò', 'Hans Jürgen', 'Kaiser Łukasz', 'Anna Straße']);
  });

  it('reads what the hand-written reader got wrong: maths and text symbols, verbatim URLs, % comments between fields', () => {
    const { references, skipped } = read(`@article{k,
      title = {The $\\alpha$-helix at 37\\textdegree{}C \\textendash{} a r\\'{e}sum\\'e},  % a line comment, as biber allows
      url = {https://example.org/~ada/a--b.pdf},
      year = 2014, month = mar, journal = {X}}`);
    expect(skipped).toEqual([]);
    // Before: "The $$-helix at 37C  a résumé" (unknown commands dropped), and the URL as "https://example.org/ ada/a–b.pdf".
    expect(references[0]).toMatchObject({ title: 'The α-helix at 37°C – a résumé', url: 'https://example.org/~ada/a--b.pdf', year: 2014, venue: 'X' });
  });

  it('reads the shipped demo library into references with normalised identifiers', () => {
    const { references, skipped } = readLibraryFile('bibtex', readFileSync(DEMO, 'utf8'));
    expect(skipped).toEqual([]);
    expect(references).toHaveLength(20);
    const byKey = new Map(references.map((r) => [r.citationKey, r]));
    expect(byKey.get('vaswani2017attention')).toMatchObject({ title: 'Attention Is All You Need', arxivId: '1706.03762', doi: null, year: 2017, authors: expect.arrayContaining(['Ashish Vaswani', 'Łukasz Kaiser']) });
    expect(byKey.get('devlin2019bert')).toMatchObject({ title: 'BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding', doi: '10.18653/v1/n19-1423', arxivId: '1810.04805' });
    expect(byKey.get('lecun2015deep')).toMatchObject({ venue: 'Nature', doi: '10.1038/nature14539', pmid: '26017442', authors: ['Yann LeCun', 'Yoshua Bengio', 'Geoffrey Hinton'] });
    expect(byKey.get('velickovic2018gat')!.authors[0]).toBe('Petar Veličković');
    expect(byKey.get('silver2016mastering')!.authors).not.toContain('others');
    expect(byKey.get('mikolov2013word2vec')!.venue).toBe('arXiv');
    expect(byKey.get('watson1953dna')!.keywords).toContain('DNA');
  });
});
