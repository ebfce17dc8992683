import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('drops the least recently used entry beyond its capacity, a read counting as a use', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1); // b is now the least recently used
    map.set('c', 3);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('peeks without counting a use', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.peek('a')).toBe(1);
    map.set('c', 3);
    expect(map.peek('a')).toBeUndefined();
  });

  it('re-setting a key replaces its value and makes it the most recent', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect(map.get('a')).toBe(10);
    expect(map.get('b')).toBeUndefined();
  });

  it('deletes one key, or every key that matches', () => {
    const map = new LruMap<string, number>(10);
    map.set('k1:x', 1).set('k1:y', 2).set('k2:x', 3);
    expect(map.delete('k2:x')).toBe(true);
    expect(map.delete('k2:x')).toBe(false);
    map.deleteWhere((key) => key.startsWith('k1:'));
    expect(map.size).toBe(0);
  });

  it('refuses a capacity that holds nothing', () => {
    expect(() => new LruMap(0)).toThrow('at least one entry');
    expect(() => new LruMap(1.5)).toThrow('at least one entry');
  });
});
