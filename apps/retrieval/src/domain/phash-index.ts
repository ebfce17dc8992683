export interface PhashIndexEntry {
  /** Dense non-negative integer key (the catalogue's serial row id); it doubles as the storage slot. */
  readonly id: number;
  readonly hash: bigint;
}

export interface PhashMatch {
  readonly id: number;
  readonly distance: number;
}

export interface PhashIndexOptions {
  readonly initialCapacity?: number;
  /**
   * Changes since the last build are kept in a small side table; once they exceed this share of the
   * built entries the packed tables are rebuilt (O(n), about a second at 10M).
   */
  readonly compactionRatio?: number;
  /** Side-table size below which no compaction is triggered, whatever the ratio. */
  readonly minCompactionDelta?: number;
}

const PARTS = 4;
const PART_BITS = 16;
const BUCKETS = 1 << PART_BITS;
const MAX_ID = 0xfffffffe;

export function popcount32(value: number): number {
  let x = value - ((value >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export function splitHash(hash: bigint): [hi: number, lo: number] {
  const unsigned = BigInt.asUintN(64, hash);
  return [Number(unsigned >> 32n), Number(unsigned & 0xffffffffn)];
}

/** Every 16-bit mask with at most `radius` bits set: the bucket offsets a part is probed at. */
function masksWithin(radius: number): Uint16Array {
  const masks: number[] = [0];
  let frontier = [0];
  for (let r = 1; r <= radius; r += 1) {
    const next: number[] = [];
    for (const mask of frontier) {
      const highest = mask === 0 ? -1 : 31 - Math.clz32(mask);
      for (let bit = highest + 1; bit < PART_BITS; bit += 1) next.push(mask | (1 << bit));
    }
    masks.push(...next);
    frontier = next;
  }
  return Uint16Array.from(masks);
}

/**
 * Near-duplicate pHash search by multi-index hashing (Norouzi et al.): the 64 bits are split into four
 * 16-bit parts, each indexed by its value. Two hashes within Hamming distance d differ in some part by
 * at most ⌊d/4⌋ bits (pigeonhole: d ≤ 7 spread over 4 parts leaves one part with ≤ 1), so probing every
 * bucket within that radius in every part finds *all* of them; candidates are verified by popcount.
 *
 * Memory is flat typed arrays: the hash of id i lives at slot i (two interleaved Uint32 words), and each
 * part is a CSR table — 65 537 bucket offsets plus one Uint32 id per entry — so 10M hashes take about
 * 250 MB.
 * Inserts after the last build go to a small side table and are folded in by periodic compaction;
 * removals are tombstones skipped at verification.
 */
export class MultiIndexHashIndex {
  /** Interleaved [hi, lo] words of slot i at 2i, 2i+1: verification touches one cache line per candidate. */
  private words: Uint32Array;
  private present: Uint8Array;
  private count = 0;
  private highestId = -1;
  private readonly offsets: Uint32Array[] = [];
  private readonly entries: Uint32Array[] = [];
  private builtEntries = 0;
  private readonly delta: Map<number, number[]>[] = [];
  private deltaEntries = 0;
  private tombstones = 0;
  private readonly maskCache = new Map<number, Uint16Array>();
  private readonly compactionRatio: number;
  private readonly minCompactionDelta: number;

  constructor(options: PhashIndexOptions = {}) {
    const capacity = Math.max(16, options.initialCapacity ?? 1024);
    this.words = new Uint32Array(2 * capacity);
    this.present = new Uint8Array(capacity);
    this.compactionRatio = options.compactionRatio ?? 0.05;
    this.minCompactionDelta = options.minCompactionDelta ?? 4096;
    for (let p = 0; p < PARTS; p += 1) {
      this.offsets.push(new Uint32Array(BUCKETS + 1));
      this.entries.push(new Uint32Array(0));
      this.delta.push(new Map());
    }
  }

  static fromEntries(entries: Iterable<PhashIndexEntry>, options: PhashIndexOptions = {}): MultiIndexHashIndex {
    const index = new MultiIndexHashIndex(options);
    index.bulkLoad(entries);
    return index;
  }

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    return id >= 0 && id < this.present.length && this.present[id] === 1;
  }

  hashOf(id: number): bigint | undefined {
    if (!this.has(id)) return undefined;
    return (BigInt(this.words[2 * id] ?? 0) << 32n) | BigInt(this.words[2 * id + 1] ?? 0);
  }

  /** Adds or replaces the hash of `id`. Idempotent: the same (id, hash) twice changes nothing. */
  insert(id: number, hash: bigint): void {
    this.checkId(id);
    const [hi, lo] = splitHash(hash);
    if (this.has(id) && this.words[2 * id] === hi && this.words[2 * id + 1] === lo) return;
    this.ensureCapacity(id + 1);
    if (!this.has(id)) this.count += 1;
    this.words[2 * id] = hi;
    this.words[2 * id + 1] = lo;
    this.present[id] = 1;
    this.highestId = Math.max(this.highestId, id);
    // A replaced hash leaves a stale entry under its old buckets; verification against the current
    // hash makes it harmless, and the next compaction drops it.
    const parts = partsOf(hi, lo);
    for (let p = 0; p < PARTS; p += 1) {
      const bucket = this.delta[p];
      const key = parts[p] ?? 0;
      const list = bucket?.get(key);
      if (list === undefined) bucket?.set(key, [id]);
      else list.push(id);
    }
    this.deltaEntries += 1;
    this.maybeCompact();
  }

  remove(id: number): boolean {
    if (!this.has(id)) return false;
    this.present[id] = 0;
    this.count -= 1;
    this.tombstones += 1;
    this.maybeCompact();
    return true;
  }

  /** Replaces the whole content (the start-up rebuild from the catalogue), then packs the tables once. */
  bulkLoad(entries: Iterable<PhashIndexEntry>): void {
    this.present.fill(0);
    this.count = 0;
    this.highestId = -1;
    for (const entry of entries) this.place(entry);
    this.compact();
  }

  /** Streams a rebuild from batches (e.g. keyset pages from PostgreSQL) without holding them all. */
  async bulkLoadAsync(batches: AsyncIterable<readonly PhashIndexEntry[]>): Promise<void> {
    this.present.fill(0);
    this.count = 0;
    this.highestId = -1;
    for await (const batch of batches) for (const entry of batch) this.place(entry);
    this.compact();
  }

  /** All ids within `maxDistance` (inclusive) of `hash`, nearest first. Spec 01's "< 8" is `maxDistance` 7. */
  search(hash: bigint, maxDistance = 7): PhashMatch[] {
    if (maxDistance < 0) return [];
    const [qhi, qlo] = splitHash(hash);
    const parts = partsOf(qhi, qlo);
    const masks = this.masks(Math.floor(maxDistance / PARTS));
    const found = new Map<number, number>();
    const { words, present } = this;
    for (let p = 0; p < PARTS; p += 1) {
      const offsets = this.offsets[p];
      const entries = this.entries[p];
      const delta = this.delta[p];
      const queryPart = parts[p] ?? 0;
      if (offsets === undefined || entries === undefined || delta === undefined) continue;
      for (const mask of masks) {
        const bucket = queryPart ^ mask;
        const end = offsets[bucket + 1] ?? 0;
        // Hot loop: distance first (one cache line), the tombstone check only for the rare match.
        for (let k = offsets[bucket] ?? 0; k < end; k += 1) {
          const id = entries[k] ?? 0;
          const distance = popcount32(((words[2 * id] ?? 0) ^ qhi) >>> 0) + popcount32(((words[2 * id + 1] ?? 0) ^ qlo) >>> 0);
          if (distance <= maxDistance && present[id] === 1) found.set(id, distance);
        }
        const extra = delta.size === 0 ? undefined : delta.get(bucket);
        if (extra === undefined) continue;
        for (const id of extra) {
          const distance = popcount32(((words[2 * id] ?? 0) ^ qhi) >>> 0) + popcount32(((words[2 * id + 1] ?? 0) ^ qlo) >>> 0);
          if (distance <= maxDistance && present[id] === 1) found.set(id, distance);
        }
      }
    }
    return [...found].map(([id, distance]) => ({ id, distance })).sort((a, b) => a.distance - b.distance || a.id - b.id);
  }

  /** The same answer by brute force over every hash: the baseline the index is tested and benchmarked against. */
  searchLinear(hash: bigint, maxDistance = 7): PhashMatch[] {
    const [qhi, qlo] = splitHash(hash);
    const out: PhashMatch[] = [];
    const { words, present } = this;
    for (let id = 0; id <= this.highestId; id += 1) {
      if (present[id] !== 1) continue;
      const distance = popcount32(((words[2 * id] ?? 0) ^ qhi) >>> 0) + popcount32(((words[2 * id + 1] ?? 0) ^ qlo) >>> 0);
      if (distance <= maxDistance) out.push({ id, distance });
    }
    return out.sort((a, b) => a.distance - b.distance || a.id - b.id);
  }

  /** Packs every live hash into the per-part CSR tables and empties the side table (counting sort, O(n)). */
  compact(): void {
    const live = this.count;
    for (let p = 0; p < PARTS; p += 1) {
      const counts = new Uint32Array(BUCKETS + 1);
      const shift = p % 2 === 0 ? 16 : 0;
      const word = p < 2 ? 0 : 1;
      const { words } = this;
      for (let id = 0; id <= this.highestId; id += 1) {
        if (this.present[id] !== 1) continue;
        const key = ((words[2 * id + word] ?? 0) >>> shift) & 0xffff;
        counts[key + 1] = (counts[key + 1] ?? 0) + 1;
      }
      for (let b = 0; b < BUCKETS; b += 1) counts[b + 1] = (counts[b + 1] ?? 0) + (counts[b] ?? 0);
      const entries = new Uint32Array(live);
      const cursor = counts.slice(0, BUCKETS);
      for (let id = 0; id <= this.highestId; id += 1) {
        if (this.present[id] !== 1) continue;
        const key = ((words[2 * id + word] ?? 0) >>> shift) & 0xffff;
        const at = cursor[key] ?? 0;
        entries[at] = id;
        cursor[key] = at + 1;
      }
      this.offsets[p] = counts;
      this.entries[p] = entries;
      this.delta[p]?.clear();
    }
    this.builtEntries = live;
    this.deltaEntries = 0;
    this.tombstones = 0;
  }

  /** Bytes held by the typed arrays (the side table, small by construction, is not counted). */
  memoryBytes(): number {
    let bytes = this.words.byteLength + this.present.byteLength;
    for (let p = 0; p < PARTS; p += 1) bytes += (this.offsets[p]?.byteLength ?? 0) + (this.entries[p]?.byteLength ?? 0);
    return bytes;
  }

  private place(entry: PhashIndexEntry): void {
    this.checkId(entry.id);
    this.ensureCapacity(entry.id + 1);
    const [hi, lo] = splitHash(entry.hash);
    if (this.present[entry.id] !== 1) this.count += 1;
    this.words[2 * entry.id] = hi;
    this.words[2 * entry.id + 1] = lo;
    this.present[entry.id] = 1;
    this.highestId = Math.max(this.highestId, entry.id);
  }

  private maybeCompact(): void {
    const threshold = Math.max(this.minCompactionDelta, this.builtEntries * this.compactionRatio);
    if (this.deltaEntries > threshold || this.tombstones > threshold) this.compact();
  }

  private masks(radius: number): Uint16Array {
    let masks = this.maskCache.get(radius);
    if (masks === undefined) {
      masks = masksWithin(Math.min(radius, PART_BITS));
      this.maskCache.set(radius, masks);
    }
    return masks;
  }

  private checkId(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id > MAX_ID) throw new RangeError(`pHash index ids are integers in [0, ${MAX_ID}], got ${id}`);
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.present.length) return;
    let capacity = this.present.length;
    while (capacity < needed) capacity *= 2;
    const words = new Uint32Array(2 * capacity);
    words.set(this.words);
    const present = new Uint8Array(capacity);
    present.set(this.present);
    this.words = words;
    this.present = present;
  }
}

function partsOf(hi: number, lo: number): [number, number, number, number] {
  return [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff];
}
