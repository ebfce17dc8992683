import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { latexToText } from '../latex-text.js';
import { readLibraryFile } from '../read-library-file.js';
import { parseBibtex, splitBibtexNames } from './parse-bibtex.js';

const DEMO = join(import.meta.dirname, '../../../sample-library/openpaw-demo.bib');

describe('parseBibtex', () => {
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
    expect(entries).toEqual([
      { type: 'article', key: 'key1', fields: { title: 'A {Nested {Brace}} Title', journal: 'Journal of Machine Learning', year: '2014', month: '3', note: 'quoted {with "inner" quote}' } },
      { type: 'misc', key: 'key2', fields: { title: 'Round' } },
    ]);
  });

  it('reports a broken entry and goes on with the next', () => {
    const { entries, errors } = parseBibtex('@article{bad, title = {unbalanced }\n@article{good, title={Fine}}');
    expect(entries.map((e) => e.key)).toEqual(['good']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.reason).toMatch(/expected|unbalanced|end of file/);
  });

  it('splits author lists on top-level "and" only', () => {
    expect(splitBibtexNames('Smith, John and {Barnes and Noble} and Doe, Jane')).toEqual(['Smith, John', '{Barnes and Noble}', 'Doe, Jane']);
    expect(splitBibtexNames('Anderson, Ann AND Sand, Bo')).toEqual(['Anderson, Ann', 'Sand, Bo']);
  });

  it('decodes LaTeX to text', () => {
    expect(latexToText('Veli{\\v{c}}kovi{\\\'c} and Li{\\`o} and J{\\"u}rgen and {\\L}ukasz and Stra{\\ss}e')).toBe('Veličković and Liò and Jürgen and Łukasz and Straße');
    expect(latexToText('MICCAI 2015 -- pages 234--241 \\& \\emph{more}~here')).toBe('MICCAI 2015 – pages 234–241 & more here');
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
