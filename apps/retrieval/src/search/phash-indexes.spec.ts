import { PhashIndexes } from './phash-indexes.js';

describe('PhashIndexes', () => {
  it('keeps hashes of each pHash version apart and moves a re-indexed document to its new version', async () => {
    const indexes = new PhashIndexes();
    const pages = (async function* () {
      yield await Promise.resolve([{ id: 1, hash: 0xffn }]);
    })();
    await indexes.forIndexing('v1').bulkLoadAsync(pages);
    indexes.forIndexing('v1').insert(2, 0xfen);
    expect(indexes.lookup('v1').search(0xffn, 7).map((m) => m.id)).toEqual([1, 2]);
    expect(indexes.lookup('v2').search(0xffn, 7)).toEqual([]);
    expect(indexes.lookup(undefined).search(0xffn, 7)).toEqual([]);

    indexes.forIndexing('v2').insert(2, 0xffn);
    expect(indexes.lookup('v1').search(0xffn, 7).map((m) => m.id)).toEqual([1]);
    expect(indexes.lookup('v2').search(0xffn, 7).map((m) => m.id)).toEqual([2]);
    expect(indexes.sizes()).toEqual({ v1: 1, v2: 1 });

    indexes.forIndexing(undefined).remove(2);
    expect(indexes.sizes()).toEqual({ v1: 1, v2: 0 });
    expect(() => indexes.forIndexing(undefined).insert(3, 1n)).toThrow(/version/);
  });
});
