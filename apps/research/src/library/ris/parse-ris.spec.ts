import { readLibraryFile } from '../read-library-file.js';
import { parseRis } from './parse-ris.js';

const RIS = [
  'TY  - JOUR',
  'TI  - Highly accurate protein structure prediction with AlphaFold',
  'AU  - Jumper, John',
  'AU  - Evans, Richard',
  'PY  - 2021/08/26/',
  'JO  - Nature',
  'AB  - Proteins are essential to life, and understanding their structure',
  'can facilitate a mechanistic understanding of their function.',
  'DO  - https://doi.org/10.1038/S41586-021-03819-2',
  'UR  - https://www.nature.com/articles/s41586-021-03819-2',
  'KW  - protein folding',
  'KW  - deep learning',
  'ER  - ',
  '',
  'TY  - UNPB',
  'TI  - Attention Is All You Need',
  'AU  - Vaswani, Ashish',
  'PY  - 2017',
  'AN  - arXiv:1706.03762v5',
  'ER  - ',
  'TY  - GEN',
  'AU  - Nobody',
  'ER  - ',
].join('\r\n');

describe('parseRis', () => {
  it('reads records, repeated tags and wrapped values', () => {
    const { records, errors } = parseRis(RIS);
    expect(errors).toEqual([]);
    expect(records).toHaveLength(3);
    expect(records[0]!.type).toBe('JOUR');
    expect(records[0]!.tags['AU']).toEqual(['Jumper, John', 'Evans, Richard']);
    expect(records[0]!.tags['AB']![0]).toBe('Proteins are essential to life, and understanding their structure can facilitate a mechanistic understanding of their function.');
  });

  it('maps records to references and lists the unreadable ones', () => {
    const { references, skipped } = readLibraryFile('ris', RIS);
    expect(references[0]).toMatchObject({
      entryType: 'JOUR',
      title: 'Highly accurate protein structure prediction with AlphaFold',
      authors: ['John Jumper', 'Richard Evans'],
      year: 2021,
      venue: 'Nature',
      doi: '10.1038/s41586-021-03819-2',
      keywords: ['protein folding', 'deep learning'],
    });
    expect(references[0]!.citationKey).toMatch(/^ref-[0-9a-f]{12}$/);
    expect(references[1]).toMatchObject({ arxivId: '1706.03762', year: 2017 });
    expect(skipped).toEqual([{ entry: 2, reason: 'RIS record 3 (GEN) has no title' }]);
  });

  it('reports records without TY or ER', () => {
    const { records, errors } = parseRis('TI  - orphan\nTY  - JOUR\nTI  - A\nTY  - JOUR\nTI  - B\nER  - \nTY  - JOUR\nTI  - C');
    expect(records.map((r) => r.tags['TI']![0])).toEqual(['B']);
    expect(errors.map((e) => e.reason)).toEqual([expect.stringContaining('outside a record'), expect.stringContaining('no ER'), 'last record has no ER']);
  });

  it('keeps multi-line fields whole: a wrapped repeated tag, a value that starts on the next line, blank lines inside', () => {
    const { references, skipped } = readLibraryFile(
      'ris',
      ['TY  - JOUR', 'TI  - Protein structure', '   prediction at scale', 'KW  - one', 'KW  - two', '  wrapped', 'AB  -', 'Text that starts', '', 'on the next line.', 'PY  - 2021', 'ER  - '].join('\n'),
    );
    expect(skipped).toEqual([]);
    // Citation.js's own RIS line reader gives "one,two wrapped" as one keyword and drops the abstract: this reader stays ours.
    expect(references[0]).toMatchObject({ title: 'Protein structure prediction at scale', keywords: ['one', 'two wrapped'], abstract: 'Text that starts on the next line.' });
  });

  it('reads RIS names as "Last, First, Suffix" and dates with empty parts (the hand-written mapping gave "Jr. Jumper John")', () => {
    const { references } = readLibraryFile('ris', ['TY  - CPAPER', 'TI  - A', 'AU  - Jumper, John, Jr.', 'AU  - Yann LeCun', 'DA  - 2020/05/01/', 'T2  - NeurIPS', 'ER  - '].join('\r\n'));
    expect(references[0]).toMatchObject({ authors: ['John Jumper Jr.', 'Yann LeCun'], year: 2020, venue: 'NeurIPS', entryType: 'CPAPER' });
  });
});
