import { type Paper, paperIdentityOf } from '@openpaw/contracts';
import { normaliseArxivId, normaliseDoi } from '@openpaw/providers';
import { paperIdOf } from '../papers/paper-id.js';
import { deduplicate, distinguishingMarkers } from './deduplicate.js';
import { excludeRejected } from './exclude-rejected.js';

function paper(overrides: Partial<Paper> & Pick<Paper, 'title' | 'sources'>): Paper {
  const base: Paper = {
    id: '',
    title: overrides.title,
    authors: [{ name: 'A. Author', id: null }],
    year: null,
    venue: null,
    abstract: null,
    doi: null,
    arxivId: null,
    pmid: null,
    url: null,
    pdfUrl: null,
    citationCount: null,
    sources: overrides.sources,
    sourceIds: overrides.sources.map((s) => ({ source: s, id: `${s}-${overrides.title.length}` })),
  };
  const p = { ...base, ...overrides };
  return { ...p, id: paperIdOf(p) };
}

describe('deduplicate (DOI → arXiv id / PMID → exact title → fuzzy title → merge)', () => {
  it('merges DOI case and prefix variants once they are normalised by the adapters', () => {
    const dois = ['10.1038/NATURE14539', 'https://doi.org/10.1038/nature14539', 'doi:10.1038/Nature14539'].map(normaliseDoi);
    const papers = [
      paper({ title: 'Deep learning', doi: dois[0]!, sources: ['crossref'], venue: 'Nature', year: 2015, citationCount: 10 }),
      paper({ title: 'Deep Learning.', doi: dois[1]!, sources: ['openalex'], abstract: 'Deep learning allows computational models...', citationCount: 70000 }),
      paper({ title: 'Deep learning (review)', doi: dois[2]!, sources: ['semantic_scholar'], pmid: '26017442' }),
    ];
    const { papers: merged, duplicatesMerged } = deduplicate(papers);
    expect(duplicatesMerged).toBe(2);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({
      id: 'doi:10.1038/nature14539',
      title: 'Deep learning',
      doi: '10.1038/nature14539',
      pmid: '26017442',
      venue: 'Nature',
      year: 2015,
      abstract: 'Deep learning allows computational models...',
      citationCount: 70000,
      sources: ['crossref', 'openalex', 'semantic_scholar'],
    });
    expect(merged[0]!.sourceIds.map((s) => s.source)).toEqual(['crossref', 'openalex', 'semantic_scholar']);
  });

  it('merges arXiv versions and an arXiv DOI with the journal version that carries the arXiv id', () => {
    const papers = [
      paper({ title: 'Attention Is All You Need', arxivId: normaliseArxivId('1706.03762v1'), sources: ['arxiv'], venue: 'arXiv', year: 2017 }),
      paper({ title: 'Attention is all you need', arxivId: normaliseArxivId('arXiv:1706.03762v5'), sources: ['serpapi_scholar'] }),
      paper({ title: 'Attention is All you Need', doi: '10.48550/arxiv.1706.03762', arxivId: normaliseArxivId('10.48550/arXiv.1706.03762'), sources: ['openalex'] }),
      paper({ title: 'Attention is all you need (NeurIPS)', arxivId: '1706.03762', sources: ['semantic_scholar'], venue: 'NeurIPS', year: 2017, citationCount: 100000 }),
    ];
    const { papers: merged } = deduplicate(papers);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ id: 'arxiv:1706.03762', arxivId: '1706.03762', venue: 'NeurIPS', citationCount: 100000 });
    expect(merged[0]!.sources.sort()).toEqual(['arxiv', 'openalex', 'semantic_scholar', 'serpapi_scholar']);
  });

  it('merges by PMID', () => {
    const { papers: merged } = deduplicate([
      paper({ title: 'A trial of aspirin', pmid: '123', sources: ['openalex'] }),
      paper({ title: 'Aspirin trial: results', pmid: '123', sources: ['semantic_scholar'] }),
    ]);
    expect(merged).toHaveLength(1);
  });

  it('merges exact titles after folding punctuation, case, accents and LaTeX', () => {
    const { papers: merged } = deduplicate([
      paper({ title: 'BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding', sources: ['serpapi_scholar'] }),
      paper({ title: 'BERT - pre-training of deep {B}idirectional transformers for language understanding!', sources: ['library'] }),
      paper({ title: 'Bért: Pre–training of deep bidirectional transformers for language understanding', sources: ['crossref'], doi: '10.18653/v1/n19-1423' }),
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ id: 'doi:10.18653/v1/n19-1423', sources: ['serpapi_scholar', 'library', 'crossref'] });
  });

  it('merges fuzzy titles at 0.95, or at 0.85 only when the years agree', () => {
    const near = 'Graph attention networks for molecular property prediction';
    const typo = 'Graph attention network for molecular property predictions';
    const looser = 'Graph attention networks in molecule property prediction';
    expect(deduplicate([paper({ title: near, sources: ['openalex'] }), paper({ title: typo, sources: ['arxiv'] })]).papers).toHaveLength(1);
    expect(deduplicate([paper({ title: near, year: 2021, sources: ['openalex'] }), paper({ title: looser, year: 2021, sources: ['arxiv'] })]).papers).toHaveLength(1);
    expect(deduplicate([paper({ title: near, year: 2021, sources: ['openalex'] }), paper({ title: looser, year: 2019, sources: ['arxiv'] })]).papers).toHaveLength(2);
    expect(deduplicate([paper({ title: near, sources: ['openalex'] }), paper({ title: looser, sources: ['arxiv'] })]).papers).toHaveLength(2);
  });

  it('never merges same-titled papers whose DOIs differ (an editorial "Introduction" in two journals)', () => {
    const { papers: merged } = deduplicate([
      paper({ title: 'Introduction', doi: '10.1000/a', sources: ['crossref'] }),
      paper({ title: 'Introduction', doi: '10.2000/b', sources: ['crossref'] }),
      paper({ title: 'Introduction', sources: ['serpapi_scholar'] }),
    ]);
    expect(merged).toHaveLength(2);
  });

  it('keeps unrelated papers apart and in order', () => {
    const { papers: merged, duplicatesMerged } = deduplicate([
      paper({ title: 'Mastering the game of Go with deep neural networks and tree search', sources: ['openalex'] }),
      paper({ title: 'ImageNet classification with deep convolutional neural networks', sources: ['openalex'] }),
    ]);
    expect(duplicatesMerged).toBe(0);
    expect(merged.map((p) => p.title[0])).toEqual(['M', 'I']);
  });
});

describe('excludeRejected', () => {
  it('drops rejected papers by id or by any identifier they gained since', () => {
    const arxivOnly = paper({ title: 'Attention Is All You Need', arxivId: '1706.03762', sources: ['arxiv'] });
    const laterWithDoi = paper({ title: 'Attention Is All You Need', arxivId: '1706.03762', doi: '10.5555/3295222', sources: ['crossref'] });
    const other = paper({ title: 'Other', sources: ['library'] });
    expect(laterWithDoi.id).toBe('doi:10.5555/3295222');
    const { kept, excluded } = excludeRejected([laterWithDoi, other], [arxivOnly.id]);
    expect(kept).toEqual([other]);
    expect(excluded).toBe(1);
  });

  it('keeps the best record field by field: full author names, the abstract, DOI, venue, PDF link and highest citation count', () => {
    const poor = paper({ title: 'Semi-supervised classification with graph convolutional networks.', sources: ['crossref'], year: 2017, authors: [{ name: 'T. Kipf', id: null }, { name: 'M. Welling', id: null }], doi: '10.48550/arxiv.1609.02907' });
    const rich = paper({
      title: 'Semi-Supervised Classification with Graph Convolutional Networks',
      sources: ['arxiv'],
      year: 2017,
      authors: [{ name: 'Thomas N. Kipf', id: null }, { name: 'Max Welling', id: null }],
      abstract: 'We present a scalable approach for semi-supervised learning on graph-structured data.',
      arxivId: '1609.02907',
      pdfUrl: 'https://arxiv.org/pdf/1609.02907',
      venue: 'ICLR 2017',
      citationCount: 20_000,
    });
    const stub = paper({ title: 'Semi-supervised classification with graph convolutional networks', sources: ['openalex'], year: 2017, citationCount: 25_000, venue: null });
    const { papers } = deduplicate([poor, rich, stub]);
    expect(papers).toHaveLength(1);
    expect(papers[0]).toMatchObject({
      title: 'Semi-Supervised Classification with Graph Convolutional Networks',
      authors: [{ name: 'Thomas N. Kipf' }, { name: 'Max Welling' }],
      abstract: rich.abstract,
      venue: 'ICLR 2017',
      pdfUrl: rich.pdfUrl,
      citationCount: 25_000,
      arxivId: '1609.02907',
    });
  });

  it('never fuzzy-merges parts, volumes, editions, errata or differently numbered titles', () => {
    const pairs = [
      ['Deep learning for protein design, Part I: foundations', 'Deep learning for protein design, Part II: foundations'],
      ['Handbook of graph neural networks, volume 2', 'Handbook of graph neural networks, volume 3'],
      ['Pattern recognition and machine learning, second edition', 'Pattern recognition and machine learning, third edition'],
      ['Erratum: Attention is all you need for molecules', 'Attention is all you need for molecules'],
      ['Language models are few-shot learners: GPT-3', 'Language models are few-shot learners: GPT-4'],
    ] as const;
    for (const [a, b] of pairs) {
      expect(distinguishingMarkers(a)).not.toBe(distinguishingMarkers(b));
      expect(deduplicate([paper({ title: a, sources: ['openalex'], year: 2020 }), paper({ title: b, sources: ['crossref'], year: 2020 })]).papers).toHaveLength(2);
    }
    expect(deduplicate([paper({ title: 'Deep learning for protein design, Part I', sources: ['openalex'], year: 2020 }), paper({ title: 'Deep Learning for Protein Design - Part I.', sources: ['crossref'], year: 2020 })]).papers).toHaveLength(1);
  });

  it('takes the publication\'s record kind over the preprint\'s', () => {
    const preprint = paper({ title: 'Graph attention networks', arxivId: '1710.10903', sources: ['arxiv'], venue: 'arXiv', year: 2017, kind: 'preprint' });
    const published = paper({ title: 'Graph Attention Networks', arxivId: '1710.10903', sources: ['openalex'], venue: 'ICLR', year: 2018, kind: 'conference_paper' });
    expect(deduplicate([preprint, published]).papers[0]!.kind).toBe('conference_paper');
    expect(deduplicate([preprint, { ...published, kind: undefined }]).papers[0]!.kind).toBe('preprint');
    expect(deduplicate([{ ...preprint, kind: undefined }, { ...published, kind: undefined }]).papers[0]!.kind).toBeUndefined();
  });

  describe('the alias table (papers of earlier iterations)', () => {
    const preprint = paper({ title: 'Graph attention networks', arxivId: '1710.10903', sources: ['arxiv'], venue: 'arXiv', year: 2017, authors: [{ name: 'Petar Veličković', id: null }] });
    const journal = paper({ title: 'Graph Attention Networks.', doi: '10.1/gat', sources: ['crossref'], venue: 'ICLR', year: 2018, authors: [{ name: 'P. Velickovic', id: null }] });

    it('keeps the first-assigned id when a later merge brings a stronger identifier', () => {
      expect(preprint.id).toBe('arxiv:1710.10903');
      // Iteration 2 finds the preprint again with its publisher record: alone, the merge would be named by the DOI.
      expect(deduplicate([journal, preprint]).papers[0]!.id).toBe('doi:10.1/gat');
      const { papers, earlierIds, duplicatesMerged } = deduplicate([journal, preprint], [paperIdentityOf(preprint)]);
      expect(papers).toHaveLength(1);
      expect(duplicatesMerged).toBe(1);
      expect(papers[0]).toMatchObject({ id: 'arxiv:1710.10903', doi: '10.1/gat', arxivId: '1710.10903', venue: 'ICLR' });
      expect(earlierIds.get('arxiv:1710.10903')).toEqual(['arxiv:1710.10903']);
    });

    it('matches a known paper by title too, and outputs no known paper that was not found again', () => {
      const titleOnly = paper({ title: 'Graph attention networks', sources: ['library'], year: 2018, authors: [{ name: 'Petar Velickovic', id: null }] });
      const other = paper({ title: 'Inductive representation learning on large graphs', doi: '10.1/sage', sources: ['openalex'], year: 2017 });
      const { papers } = deduplicate([journal], [paperIdentityOf(titleOnly), paperIdentityOf(other)]);
      expect(papers.map((p) => p.id)).toEqual([titleOnly.id]);
    });

    it('keeps the earliest of two known ids a new record bridges, and a rejected later id still excludes the paper', () => {
      const known = [paperIdentityOf(preprint), paperIdentityOf({ ...journal, id: 'doi:10.1/gat' })];
      const bridge = paper({ title: 'Graph Attention Networks', doi: '10.1/gat', arxivId: '1710.10903', sources: ['openalex'], year: 2018 });
      const { papers, earlierIds } = deduplicate([bridge], known);
      expect(papers.map((p) => p.id)).toEqual(['arxiv:1710.10903']);
      expect(earlierIds.get('arxiv:1710.10903')).toEqual(['arxiv:1710.10903', 'doi:10.1/gat']);
      expect(excludeRejected(papers, ['title:unrelated'], earlierIds).kept).toHaveLength(1);
      const renamed = papers.map((p) => ({ ...p, doi: null }));
      expect(excludeRejected(renamed, ['doi:10.1/gat'], earlierIds).kept).toHaveLength(0);
    });

    it('does not join a known paper whose identifier conflicts, nor parts of a series', () => {
      const partOne = paper({ title: 'Deep learning for protein design, Part I', sources: ['openalex'], year: 2020 });
      const partTwo = paper({ title: 'Deep learning for protein design, Part II', sources: ['crossref'], year: 2020 });
      expect(deduplicate([partTwo], [paperIdentityOf(partOne)]).papers[0]!.id).toBe(partTwo.id);
      const otherDoi = paper({ title: 'Graph attention networks', doi: '10.1/another', sources: ['crossref'], year: 2018, authors: [{ name: 'P. Velickovic', id: null }] });
      expect(deduplicate([otherDoi], [paperIdentityOf(journal)]).papers[0]!.id).toBe('doi:10.1/another');
    });
  });
});
