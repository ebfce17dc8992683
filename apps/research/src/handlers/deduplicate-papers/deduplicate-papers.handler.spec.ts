import { isReplyOf } from '@openpaw/messaging';
import { PapersDeduplicated } from '@openpaw/contracts';
import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import type { Paper } from '@openpaw/contracts';
import { RUN_ID, testSettings } from '../../testing/handler-fixtures.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import { DeduplicatePapersHandler } from './deduplicate-papers.handler.js';

const base = { authors: [], year: 2017, venue: null, abstract: null, pmid: null, url: null, pdfUrl: null, citationCount: null };
const papers: Paper[] = [
  { ...base, id: 'arxiv:1706.03762', title: 'Attention Is All You Need', doi: null, arxivId: '1706.03762', sources: ['arxiv'], sourceIds: [{ source: 'arxiv', id: '1706.03762' }] },
  { ...base, id: 'arxiv:1706.03762', title: 'Attention is all you need', doi: null, arxivId: '1706.03762', sources: ['openalex'], sourceIds: [{ source: 'openalex', id: 'W1' }] },
  { ...base, id: 'doi:10.1/rejected', title: 'A paper the user rejected', doi: '10.1/rejected', arxivId: null, sources: ['crossref'], sourceIds: [{ source: 'crossref', id: '10.1/rejected' }] },
];

describe('DeduplicatePapersHandler', () => {
  it('merges duplicates keeping both sources ids, and leaves rejected papers out', async () => {
    const reply = await new DeduplicatePapersHandler(new InMemoryKeptReplyStore(), new PaperSets(null), testSettings).execute({ commandId: 'd1', data: { runId: RUN_ID, iteration: 2, papers, excludePaperIds: ['doi:10.1/rejected'] } });
    expect(reply).toMatchObject({ message: PapersDeduplicated, data: { iteration: 2, duplicatesMerged: 1, rejectedExcluded: 1 } });
    if (!isReplyOf(reply, PapersDeduplicated)) throw new Error(reply.message.name);
    expect(reply.data.papers).toHaveLength(1);
    expect(reply.data.papers[0]!.sourceIds).toEqual([
      { source: 'arxiv', id: '1706.03762' },
      { source: 'openalex', id: 'W1' },
    ]);
  });

  it('gives a paper found again the id an earlier iteration assigned (knownPapers)', async () => {
    const journal: Paper = { ...base, id: 'doi:10.1/attention', title: 'Attention is all you need.', doi: '10.1/attention', arxivId: '1706.03762', sources: ['crossref'], sourceIds: [{ source: 'crossref', id: '10.1/attention' }] };
    const known = [{ id: 'arxiv:1706.03762', title: 'Attention Is All You Need', firstAuthor: null, year: 2017, doi: null, arxivId: '1706.03762', pmid: null }];
    const reply = await new DeduplicatePapersHandler(new InMemoryKeptReplyStore(), new PaperSets(null), testSettings).execute({ commandId: 'd2', data: { runId: RUN_ID, iteration: 3, papers: [journal], excludePaperIds: [], knownPapers: known } });
    if (!isReplyOf(reply, PapersDeduplicated)) throw new Error(reply.message.name);
    expect(reply.data.papers.map((p) => [p.id, p.doi])).toEqual([['arxiv:1706.03762', '10.1/attention']]);
  });
});
