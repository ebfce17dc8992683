import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { openResearchDatabase } from '../persistence/database.js';
import { parseSearchExpression } from '@openpaw/providers';
import { expressionTsquery, PgLibraryStore, toTsquery } from '../persistence/pg-library-store.js';
import { LibrarySource } from './library-source.js';
import { readLibraryFile } from './read-library-file.js';

const DEMO = readFileSync(join(import.meta.dirname, '../../sample-library/openpaw-demo.bib'), 'utf8');

describe('the library source on real PostgreSQL full-text search', () => {
  let dataSource: DataSource;
  let store: PgLibraryStore;

  beforeAll(async () => {
    dataSource = await openResearchDatabase({ databaseUrl: await freshDatabase('research_library'), poolSize: 2 });
    store = new PgLibraryStore(dataSource);
  });
  afterAll(async () => dataSource.destroy());

  it('imports the demo library once: a second import updates, never duplicates', async () => {
    const { references } = readLibraryFile('bibtex', DEMO);
    expect(await store.isEmpty('ada')).toBe(true);
    expect(await store.upsert('ada', references)).toEqual({ added: 20, updated: 0 });
    expect([await store.isEmpty('ada'), await store.isEmpty('grace')]).toEqual([false, true]);
    expect(await store.upsert('ada', references)).toEqual({ added: 0, updated: 20 });
    const rows = await dataSource.query<{ n: number }[]>(`select count(*)::int as n from library_references where user_id = 'ada'`);
    expect(rows).toEqual([{ n: 20 }]);
  });

  it('finds papers by stemmed title and keyword words, best match first, within the user only', async () => {
    const library = new LibrarySource(store, 'ada');
    const graphs = await library.search({ text: 'graph neural networks', phrases: ['graph neural networks'], limit: 10 });
    expect(graphs.works.map((w) => w.sourceId).sort()).toEqual(['kipf2017gcn', 'velickovic2018gat']);
    expect(graphs.works[0]).toMatchObject({ source: 'library', arxivId: expect.any(String), url: expect.stringContaining('arxiv.org/abs/') });

    const proteins = await library.search({ text: 'protein folding', phrases: ['protein folding'], limit: 10 });
    expect(proteins.works.map((w) => w.title)).toEqual(['Highly accurate protein structure prediction with AlphaFold']);

    // Any phrase may match; the paper matching both ranks first.
    const either = await library.search({ text: '', phrases: ['attention', 'machine translation'], limit: 10 });
    expect(either.works[0]!.sourceId).toBe('vaswani2017attention');
    expect(either.works.map((w) => w.sourceId)).toContain('velickovic2018gat');

    // Another user sees none of it: their library is empty, and the search says so with the import command.
    await expect(new LibrarySource(store, 'someone-else').search({ text: 'attention', phrases: ['attention'], limit: 10 })).rejects.toMatchObject({
      kind: 'no_credentials',
      message: expect.stringContaining('your library is empty: import your references with `openpaw library'),
    });
  });

  it('filters by year and limits, reporting the total', async () => {
    const library = new LibrarySource(store, 'ada');
    const all = await library.search({ text: 'neural networks', phrases: ['neural networks'], limit: 50 });
    const recent = await library.search({ text: 'neural networks', phrases: ['neural networks'], yearFrom: 2016, yearTo: 2018, limit: 2 });
    expect(recent.works).toHaveLength(2);
    expect(recent.totalAvailable).toBeGreaterThan(2);
    expect(recent.totalAvailable).toBeLessThan(all.totalAvailable!);
    expect(recent.works.every((w) => w.year !== null && w.year >= 2016 && w.year <= 2018)).toBe(true);
  });

  it('keeps tsquery syntax out of user text', async () => {
    expect(toTsquery(["graph's & (neural) | !networks", 'DNA'])).toBe('(graph & s & neural & networks) | DNA');
    expect(toTsquery(['&&', ''])).toBeNull();
    const hits = await store.search('ada', { phrases: ["deep' | !learning:*"], yearFrom: null, yearTo: null, limit: 5 });
    expect(hits.hits.map((h) => h.citationKey)).toContain('lecun2015deep');
  });

  it('searches the approved boolean query with AND, OR and NOT, as the checkpoint shows it', async () => {
    const library = new LibrarySource(store, 'ada');
    const expression = parseSearchExpression('"neural networks" AND (graph OR convolutional) NOT attention');
    expect(expressionTsquery(expression)).toBe('(((neural & networks) & (graph | convolutional)) & !attention)');
    const hits = await library.search({ text: '', phrases: [], expression, limit: 20 });
    expect(hits.works.map((w) => w.sourceId)).toContain('kipf2017gcn');
    // The GAT paper is about graph neural networks but also attention: NOT excludes it.
    expect(hits.works.map((w) => w.sourceId)).not.toContain('velickovic2018gat');
    const withAttention = await library.search({ text: '', phrases: [], expression: parseSearchExpression('"neural networks" AND graph AND attention'), limit: 20 });
    expect(withAttention.works.map((w) => w.sourceId)).toContain('velickovic2018gat');
    expect(expressionTsquery(parseSearchExpression('"&&" OR x'))).toBe('x');
  });
});
