import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFsBlobStore } from '@openpaw/providers/blob';
import { scoredPaperFixture } from '@openpaw/testkit';
import { StoredPaperLists } from './stored-paper-lists.js';

const list = (key: string, n: number) => Array.from({ length: n }, (_, i) => scoredPaperFixture(`doi:10.1/${key}-${i}`, { title: `Paper ${key} ${i}`, abstract: `Abstract ${i}.` }));

describe('StoredPaperLists: each stored list read once for every route and request', () => {
  let dir: string;
  let blobs: LocalFsBlobStore;
  let reads: string[];
  const counting = { get: (key: string) => (reads.push(key), blobs.get(key)) };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stored-paper-lists-'));
    blobs = new LocalFsBlobStore({ rootDir: dir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
    reads = [];
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a list once: again later, and by concurrent readers, it is the same papers without a blob read', async () => {
    await blobs.put('paper-search/run/a.json', JSON.stringify(list('a', 300)));
    const lists = new StoredPaperLists(counting);
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => lists.read({ blobKey: 'paper-search/run/a.json', count: 300 })));
    expect(concurrent.every((read) => 'papers' in read && read.papers.length === 300)).toBe(true);
    const again = await lists.read({ blobKey: 'paper-search/run/a.json', count: 300 });
    expect('papers' in again && 'papers' in concurrent[0]! && again.papers === concurrent[0].papers).toBe(true);
    expect(reads).toEqual(['paper-search/run/a.json']);
  });

  it('keeps no list that is gone or does not match its reference, says which, and reads it again on the next request', async () => {
    const lists = new StoredPaperLists(counting);
    const ref = { blobKey: 'paper-search/run/b.json', count: 2 };
    expect(await lists.read(ref)).toEqual({ unavailable: 'gone' });
    await blobs.put(ref.blobKey, 'not json');
    expect(await lists.read(ref)).toEqual({ unavailable: 'unreadable' });
    await blobs.put(ref.blobKey, JSON.stringify(list('b', 2)));
    expect(await lists.read({ ...ref, count: 3 })).toEqual({ unavailable: 'unreadable' }); // read and kept, but not of this count
    expect(await lists.read(ref)).toEqual({ papers: expect.any(Array) as unknown });
    expect(((await lists.read(ref)) as { papers: unknown[] }).papers).toHaveLength(2);
    expect(reads).toHaveLength(3);
  });

  it('keeps lists within its byte budget, the least recently read going first, and reads a list again after its time', async () => {
    const keys = ['c', 'd', 'e', 'f', 'g'].map((k) => `paper-search/run/${k}.json`);
    for (const key of keys) await blobs.put(key, JSON.stringify(list(key, 20)));
    const size = (await blobs.get(keys[0]!)).body.length;
    const lists = new StoredPaperLists(counting, { maxBytes: 4 * size + 10, ttlMs: 60_000 });
    for (const key of keys) await lists.read({ blobKey: key, count: 20 });
    // Four fit: c, the least recently read, went when g came.
    reads = [];
    for (const key of keys.slice(1)) await lists.read({ blobKey: key, count: 20 });
    expect(reads).toEqual([]);
    await lists.read({ blobKey: keys[0]!, count: 20 });
    expect(reads).toEqual([keys[0]]);
    // A list larger than a quarter of the budget is not kept (it would push out a page's lists).
    const small = new StoredPaperLists(counting, { maxBytes: 3 * size, ttlMs: 60_000 });
    await small.read({ blobKey: keys[1]!, count: 20 });
    await small.read({ blobKey: keys[1]!, count: 20 });
    expect(reads).toEqual([keys[0], keys[1], keys[1]]);
    reads = [keys[0]!];
    const now = Date.now;
    const later = now() + 60_001;
    Date.now = () => later;
    try {
      await lists.read({ blobKey: keys[0]!, count: 20 });
    } finally {
      Date.now = now;
    }
    expect(reads).toEqual([keys[0], keys[0]]);
  });
});
