import { type Paper, splitName, toBibtex, toCslJson, toRis } from '@openpaw/contracts';
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
    expect(ris.split('\r\n').slice(0, 3)).toEqual(['TY  - JOUR', 'TI  - Deep learning', 'AU  - Yann LeCun']);
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
});
