import { findArxivId, findDoi, normaliseArxivId, normaliseDoi, normalisePmid } from './identifiers.js';

describe('identifier normalisation', () => {
  it('gives one spelling per DOI whatever its case, prefix or encoding', () => {
    const spellings = ['10.1038/NATURE14539', 'https://doi.org/10.1038/nature14539', 'http://dx.doi.org/10.1038/Nature14539', 'doi:10.1038/nature14539', 'DOI: 10.1038/nature14539.', 'https://doi.org/10.1038%2Fnature14539'];
    expect(new Set(spellings.map(normaliseDoi))).toEqual(new Set(['10.1038/nature14539']));
    expect(normaliseDoi('not a doi')).toBeNull();
    expect(normaliseDoi('')).toBeNull();
    expect(normaliseDoi(null)).toBeNull();
  });

  it('strips arXiv versions, prefixes and URLs, old and new style, and reads arXiv DOIs', () => {
    for (const raw of ['1706.03762', '1706.03762v5', 'arXiv:1706.03762v1', 'https://arxiv.org/abs/1706.03762v7', 'http://arxiv.org/pdf/1706.03762v2.pdf', '10.48550/arXiv.1706.03762']) {
      expect(normaliseArxivId(raw)).toBe('1706.03762');
    }
    expect(normaliseArxivId('hep-th/9901001v3')).toBe('hep-th/9901001');
    expect(normaliseArxivId('math.GT/0309136')).toBe('math.gt/0309136');
    expect(normaliseArxivId('10.1038/nature14539')).toBeNull();
  });

  it('reads PMIDs from prefixes and PubMed URLs', () => {
    expect(normalisePmid('PMID: 26017442')).toBe('26017442');
    expect(normalisePmid('https://pubmed.ncbi.nlm.nih.gov/26017442/')).toBe('26017442');
    expect(normalisePmid(26017442)).toBe('26017442');
    expect(normalisePmid('PMC123')).toBeNull();
  });

  it('finds identifiers inside links', () => {
    expect(findDoi('https://link.springer.com/article/10.1007/S11263-015-0816-Y?utm=1')).toBe('10.1007/s11263-015-0816-y');
    expect(findArxivId('https://arxiv.org/pdf/2005.14165v4')).toBe('2005.14165');
    expect(findDoi('https://example.org/paper')).toBeNull();
  });
});
