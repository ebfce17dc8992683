import { Cite, plugins } from '@citation-js/core';
import '@citation-js/plugin-csl';
import '@citation-js/plugin-ris';
import { type Paper, publishedVenueOf, splitName, toBibtex, toCslJson, toRis } from '@openpaw/contracts';
import { readLibraryFile } from '../../library/read-library-file.js';
import { paperIdOf } from '../papers/paper-id.js';

function paper(p: Omit<Paper, 'id' | 'sourceIds' | 'sources' | 'url' | 'pdfUrl' | 'citationCount' | 'abstract' | 'pmid'> & Partial<Paper>): Paper {
  const full: Paper = { url: null, pdfUrl: null, citationCount: null, abstract: null, pmid: null, sources: ['openalex'], sourceIds: [], id: '', ...p };
  return { ...full, id: paperIdOf(full) };
}

const deepLearning = paper({
  title: 'Deep learning',
  authors: [
    { name: 'Yann LeCun', id: null },
    { name: 'Yoshua Bengio', id: null },
  ],
  year: 2015,
  venue: 'Nature',
  doi: '10.1038/nature14539',
  arxivId: null,
  pmid: '26017442',
  abstract: 'Deep learning allows models with 100% more layers & {braces} to learn_representations.',
  url: 'https://doi.org/10.1038/nature14539',
});
const attention = paper({
  title: 'Attention Is All You Need',
  authors: [{ name: 'Ashish Vaswani', id: null }, { name: 'Google Brain', id: null }, { name: 'Ludwig van Beethoven', id: null }],
  year: 2017,
  venue: 'arXiv',
  doi: '10.48550/arxiv.1706.03762',
  arxivId: '1706.03762',
  pdfUrl: 'https://arxiv.org/pdf/1706.03762',
});
const secondLecun = paper({ title: 'Deep learning again', authors: [{ name: 'LeCun, Yann', id: null }], year: 2015, venue: null, doi: null, arxivId: null });

describe('collection exports', () => {
  it('writes BibTeX that reads back to the same references (keys unique, specials escaped)', () => {
    const bib = toBibtex([deepLearning, attention, secondLecun]);
    expect(bib).toContain('@article{lecun2015deep,');
    expect(bib).toContain('@misc{vaswani2017attention,');
    expect(bib).toContain('@misc{lecun2015deepa,');
    expect(bib).toContain('  author = {LeCun, Yann and Bengio, Yoshua}');
    expect(bib).toContain('100\\% more layers \\& \\{braces\\} to learn\\_representations');
    expect(bib).toContain('  eprint = {1706.03762}');
    expect(bib).not.toContain('10.48550');

    const { references, skipped } = readLibraryFile('bibtex', bib);
    expect(skipped).toEqual([]);
    expect(references[0]).toMatchObject({ title: 'Deep learning', authors: ['Yann LeCun', 'Yoshua Bengio'], year: 2015, venue: 'Nature', doi: '10.1038/nature14539', pmid: '26017442' });
    expect(references[0]!.abstract).toBe(deepLearning.abstract);
    expect(references[1]).toMatchObject({ title: 'Attention Is All You Need', arxivId: '1706.03762', authors: ['Ashish Vaswani', 'Google Brain', 'Ludwig van Beethoven'] });
    expect(toBibtex([])).toBe('');
  });

  it('picks the entry type by record kind: a source\'s kind, else the venue', () => {
    const at = (venue: string | null, kind?: Paper['kind']) => paper({ title: `A paper at ${venue ?? 'nowhere'}`, authors: [{ name: 'Ada Lovelace', id: null }], year: 2020, venue, doi: null, arxivId: null, ...(kind === undefined ? {} : { kind }) });
    const papers = [
      at('NeurIPS', 'conference_paper'),
      at('Proceedings of the 40th International Conference on Machine Learning'),
      at('Handbook of Graph Networks', 'book_chapter'),
      at('MIT', 'thesis'),
      at('Google Research', 'report'),
      at('Nature'),
      at(null),
    ];
    const types = toBibtex(papers).match(/^@\w+/gm);
    expect(types).toEqual(['@inproceedings', '@inproceedings', '@incollection', '@phdthesis', '@techreport', '@article', '@misc']);
    expect(toBibtex([papers[0]!])).toContain('  booktitle = {NeurIPS}');
    expect(toBibtex([papers[3]!])).toContain('  school = {MIT}');
    expect(toRis(papers).match(/^TY {2}- \w+/gm)).toEqual(['TY  - CPAPER', 'TY  - CPAPER', 'TY  - CHAP', 'TY  - THES', 'TY  - RPRT', 'TY  - JOUR', 'TY  - GEN']);
    expect(toRis([papers[0]!])).toContain('T2  - NeurIPS\r\n');
    expect(toCslJson(papers).map((i) => i.type)).toEqual(['paper-conference', 'paper-conference', 'chapter', 'thesis', 'report', 'article-journal', 'document']);
    // The conference paper reads back with its venue, from BibTeX and RIS.
    expect(readLibraryFile('bibtex', toBibtex([papers[0]!])).references[0]).toMatchObject({ entryType: 'inproceedings', venue: 'NeurIPS' });
    expect(readLibraryFile('ris', toRis([papers[0]!])).references[0]).toMatchObject({ venue: 'NeurIPS' });
  });

  it('writes RIS that reads back to the same references', () => {
    const ris = toRis([deepLearning, attention]);
    expect(ris.split('\r\n').slice(0, 3)).toEqual(['TY  - JOUR', 'TI  - Deep learning', 'AU  - LeCun, Yann']);
    expect(ris).toContain('TY  - UNPB\r\n');
    expect(ris).toContain('AN  - arXiv:1706.03762\r\n');
    const { references, skipped } = readLibraryFile('ris', ris);
    expect(skipped).toEqual([]);
    expect(references.map((r) => [r.title, r.year, r.doi, r.arxivId])).toEqual([
      ['Deep learning', 2015, '10.1038/nature14539', null],
      ['Attention Is All You Need', 2017, null, '1706.03762'],
    ]);
  });

  it('writes CSL-JSON items', () => {
    const [journal, preprint] = toCslJson([deepLearning, attention]);
    expect(journal).toEqual({
      id: 'doi:10.1038/nature14539',
      type: 'article-journal',
      title: 'Deep learning',
      author: [
        { family: 'LeCun', given: 'Yann' },
        { family: 'Bengio', given: 'Yoshua' },
      ],
      issued: { 'date-parts': [[2015]] },
      'container-title': 'Nature',
      DOI: '10.1038/nature14539',
      PMID: '26017442',
      URL: 'https://doi.org/10.1038/nature14539',
      abstract: deepLearning.abstract,
    });
    expect(preprint).toMatchObject({ id: 'arxiv:1706.03762', type: 'article', publisher: 'arXiv', number: 'arXiv:1706.03762' });
    expect(preprint!.author).toEqual([{ family: 'Vaswani', given: 'Ashish' }, { family: 'Brain', given: 'Google' }, { family: 'van Beethoven', given: 'Ludwig' }]);
    expect(JSON.parse(JSON.stringify(toCslJson([attention])))).toEqual(toCslJson([attention]));
  });

  it('splits names for citation formats', () => {
    expect(splitName('LeCun, Yann')).toEqual({ family: 'LeCun', given: 'Yann' });
    expect(splitName('Plato')).toEqual({ literal: 'Plato' });
  });

  describe('checked with a reference parser (Citation.js, and citeproc-js for CSL-JSON)', () => {
    const collection = [deepLearning, attention, secondLecun, paper({ title: 'Graph networks at NeurIPS', authors: [{ name: 'Petar Veličković', id: null }, { name: 'DeepMind', id: null }], year: 2020, venue: 'NeurIPS', doi: '10.5555/x', arxivId: null, kind: 'conference_paper', abstract: 'Line one.\nLine two.' })];
    // What a citation manager should read back from each export, field by field.
    const expected = (format: 'ris' | 'csl') => collection.map((p) => ({
      title: p.title,
      author: p.authors.map((a) => {
        const split = splitName(a.name);
        return 'literal' in split ? { literal: split.literal } : { family: split.family, given: split.given };
      }),
      year: p.year,
      venue: publishedVenueOf(p) ?? undefined,
      DOI: p.doi === null || p.doi.startsWith('10.48550/') ? undefined : p.doi,
      URL: p.url ?? undefined,
      // RIS values are one line each.
      abstract: (format === 'ris' ? p.abstract?.replace(/\s+/g, ' ') : p.abstract) ?? undefined,
    }));
    type Read = { title?: string; author?: { family?: string; given?: string; literal?: string }[]; issued?: { 'date-parts'?: number[][] }; 'container-title'?: string; 'event-title'?: string; DOI?: string; URL?: string; abstract?: string; type?: string };
    const fieldsOf = (item: Read) => ({
      title: item.title,
      // In RIS a name without a comma is one name: the reader files it as a family name.
      author: (item.author ?? []).map((a) => (a.given === undefined && a.family !== undefined && a.literal === undefined ? { literal: a.family } : a)),
      year: item.issued?.['date-parts']?.[0]?.[0] ?? null,
      venue: item['container-title'] ?? item['event-title'],
      DOI: item.DOI,
      URL: item.URL,
      abstract: item.abstract,
    });

    it('RIS: every record reads back with its type, title, authors (family and given), year, venue, DOI, URL and abstract', () => {
      const read = plugins.input.chain(toRis(collection), { forceType: '@ris/file', target: '@csl/list+object', generateGraph: false }) as Read[];
      expect(read.map(fieldsOf)).toEqual(expected('ris'));
      // The RIS types as the specification reads them (UNPB, RIS's preprint, is an unpublished manuscript).
      expect(read.map((item) => item.type)).toEqual(['article-journal', 'manuscript', 'document', 'paper-conference']);
    });

    it('CSL-JSON: citation-js takes every item as it is, and citeproc-js formats each with its authors, year, title, venue and DOI', () => {
      const items = toCslJson(collection);
      const read = plugins.input.chain(JSON.parse(JSON.stringify(items)), { forceType: '@csl/list+object', target: '@csl/list+object', generateGraph: false }) as Read[];
      expect(read).toEqual(items);
      expect(read.map(fieldsOf)).toEqual(expected('csl'));
      // Vancouver (a small style, ~0.3 s to compile; APA takes ~4 s): "1. Family G, Family G. Title. Venue. Year. doi:…"
      const bibliography = new Cite(items, { forceType: '@csl/list+object' }).format('bibliography', { format: 'text', template: 'vancouver', lang: 'en-US' }).trim().split('\n');
      expect(bibliography).toHaveLength(collection.length);
      for (const p of collection) {
        const line = bibliography.find((l) => new RegExp(`\\. ${p.title}(?:\\.|\\s\\[)`).test(l));
        expect(line).toBeDefined();
        expect(line).toContain(String(p.year));
        for (const a of p.authors) {
          const split = splitName(a.name);
          expect(line).toContain('literal' in split ? split.literal : split.family);
        }
        const venue = publishedVenueOf(p);
        if (venue !== null) expect(line).toContain(venue);
        if (p.doi !== null && !p.doi.startsWith('10.48550/')) expect(line).toContain(`doi:${p.doi}`);
      }
    });
  });
});
