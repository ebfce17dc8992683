import { createHash } from 'node:crypto';
import { computeProblemSignature, normaliseText, toContractSignature } from '../apps/ingestion/src/public-api.js';
import { DEFAULT_SEARCH_SETTINGS, ensureProblemCatalogTables, type IndexedProblem, mathsStage, PgProblemCatalog, queryFromSignature } from '../apps/retrieval/src/public-api.js';
import { freshDatabase } from '@openpaw/testing';
import pg from 'pg';
import { type DerivedMathsKey, deriveFromIngestion, type MathsKeyCatalog, sweepMathsKeys } from './maths-key-sweep.js';

/** The v2 key a pre-v3 ingestion sent for a typed text: today's `previousHash`, no names (as retrieval stored it then). */
function v2Maths(text: string, confidence = 1): NonNullable<IndexedProblem['maths']> {
  const maths = deriveFromIngestion(text);
  if (maths?.previousHash === undefined) throw new Error(`"${text}" has no maths signature`);
  return { hash: maths.previousHash, canonical: `v2 form of ${text}`, intent: maths.intent, numbers: [...maths.numbers], confidence };
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Normalised texts indexed under v2 that today's signature re-derives: each must be re-keyed. */
const V2_TEXTS = {
  system: 'solve x+y=10, x-y=2',
  target: 'if a=2b and a+b=9, find a',
  linear: 'solve 3k+7=22',
  arithmetic: 'evaluate 12*13',
  quadratic: 'solve for m: m^2-5m+6=0',
} as const;

describe('maths key sweep to maths-sig/v3 (real PostgreSQL)', () => {
  let pool: pg.Pool;
  let catalog: PgProblemCatalog;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabase('maths_key_sweep'), max: 4 });
    await ensureProblemCatalogTables(pool);
    catalog = new PgProblemCatalog(pool, 2);
    let n = 0;
    const add = async (text: string, maths: IndexedProblem['maths'], extra: { imageSha256?: string; phash?: string } = {}) => {
      n += 1;
      // Stored as ingestion sent it: normalised.
      expect(normaliseText(text)).toBe(text);
      await catalog.upsert({
        assetVersionId: `av-${n}`,
        problemId: `p-${n}`,
        normalisedText: text,
        textSha256: sha(text),
        subject: 'maths',
        keywords: ['algebra'],
        ...(extra.imageSha256 === undefined ? {} : { imageSha256: extra.imageSha256, phash: extra.phash, phashVersion: 'pdq-v1', quality: 90 }),
        ...(maths === undefined ? {} : { maths }),
      });
    };
    await add(V2_TEXTS.system, v2Maths(V2_TEXTS.system));
    await add(V2_TEXTS.target, v2Maths(V2_TEXTS.target));
    // Read from an image: its reading confidence and pHash must survive the re-key.
    await add(V2_TEXTS.linear, v2Maths(V2_TEXTS.linear, 0.93), { imageSha256: sha('image'), phash: 'a5c30f963c5ae187' });
    await add(V2_TEXTS.arithmetic, v2Maths(V2_TEXTS.arithmetic));
    await add(V2_TEXTS.quadratic, v2Maths(V2_TEXTS.quadratic));
    // A v1 key (older rules): today's signature does not derive it, so it is left alone.
    await add('solve 2x+1=9', { hash: sha('maths-sig/v1 2x+1=9'), canonical: 'v1 form', intent: 'solve', numbers: ['1', '2', '9'], confidence: 1 });
    // Text the current reader refuses (a letter run in the maths): no key derivable, left alone.
    await add('solve fory: sy-4=2y+11', { hash: sha('maths-sig/v2 misread'), canonical: 'v2 misread', intent: 'solve', numbers: ['11', '2', '4'], confidence: 1 });
    // Indexed by v3 with names: not selected at all.
    const named = deriveFromIngestion('solve 4t-1=11');
    await add('solve 4t-1=11', { hash: named?.hash ?? '', canonical: named?.canonical ?? '', intent: 'solve', numbers: ['1', '11', '4'], confidence: 1, unknowns: named?.unknowns ?? [] });
    // Indexed by v3 without names (beyond the contract): already current.
    const unnamed = deriveFromIngestion('solve 5w+2=17');
    await add('solve 5w+2=17', { hash: unnamed?.hash ?? '', canonical: unnamed?.canonical ?? '', intent: 'solve', numbers: ['17', '2', '5'], confidence: 1 });
    // No maths.
    await add('write a short essay about photosynthesis', undefined);
  });

  afterAll(async () => {
    await pool.end();
  });

  /** Every column but the maths key and its timestamp, per row: what the sweep must never change. */
  async function keptColumns(): Promise<unknown[]> {
    const { rows } = await pool.query<Record<string, unknown>>(
      `select doc_id, asset_version_id, problem_id, normalised_text, text_sha256, image_sha256, phash, phash_version, quality, text_dominant,
              subject, keywords, maths_intent, maths_numbers, maths_confidence, search_vector::text, indexed_at
         from retrieval.indexed_problems order by doc_id`,
    );
    return rows;
  }

  async function wholeTable(): Promise<unknown[]> {
    const { rows } = await pool.query<Record<string, unknown>>('select *, search_vector::text from retrieval.indexed_problems order by doc_id');
    return rows;
  }

  async function row(text: string): Promise<{ maths_hash: string; maths_canonical: string; maths_unknowns: string[] | null; maths_confidence: number }> {
    const { rows } = await pool.query<{ maths_hash: string; maths_canonical: string; maths_unknowns: string[] | null; maths_confidence: number }>(
      'select maths_hash, maths_canonical, maths_unknowns, maths_confidence from retrieval.indexed_problems where normalised_text = $1',
      [text],
    );
    if (rows[0] === undefined) throw new Error(`no row for ${text}`);
    return rows[0];
  }

  /** Retrieval's maths stage for a question typed now (ingestion's v3 signature with its v2 hash beside it). */
  async function mathsHit(question: string) {
    const query = queryFromSignature(toContractSignature(computeProblemSignature(question)));
    return mathsStage(query, { catalog }, DEFAULT_SEARCH_SETTINGS, () => undefined);
  }

  it('re-keys only what it can prove, survives a crash and a stop, resumes, and then finds nothing to do', async () => {
    const before = await keptColumns();
    const untouched = await wholeTable();

    // Before: the dual read finds v2 problems in their own names, never under a renaming.
    expect((await mathsHit(V2_TEXTS.system))?.relabel).toBeUndefined();
    expect((await mathsHit(V2_TEXTS.system))?.problem.assetVersionId).toBe('av-1');
    expect(await mathsHit('solve y + x = 10, y - x = 2')).toBeUndefined();

    // A dry run counts and writes nothing.
    const dry = await sweepMathsKeys(catalog, deriveFromIngestion, { dryRun: true, pageSize: 2 });
    expect(dry).toMatchObject({ examined: 8, rekeyed: 5, current: 1, unmatched: 2, unnamed: 0, raced: 0, stopped: false, version: 'maths-sig/v3' });
    expect(await wholeTable()).toEqual(untouched);

    // A crash in the middle of a page (the second row derived): the first row is re-keyed, the rest as they were.
    let derived = 0;
    const crashing = (text: string): DerivedMathsKey | undefined => {
      derived += 1;
      if (derived === 2) throw new Error('killed');
      return deriveFromIngestion(text);
    };
    await expect(sweepMathsKeys(catalog, crashing, { pageSize: 2 })).rejects.toThrow('killed');
    expect((await row(V2_TEXTS.system)).maths_unknowns).toEqual(deriveFromIngestion(V2_TEXTS.system)?.unknowns);
    expect((await row(V2_TEXTS.target)).maths_unknowns).toBeNull();
    // Half-swept, every problem is still found by a same-name question (v3 key by hash, v2 key by previousHash).
    for (const text of Object.values(V2_TEXTS)) {
      const hit = await mathsHit(text);
      expect(hit?.problem.normalisedText).toBe(text);
      expect(hit?.relabel).toBeUndefined();
    }

    // Stopped by a signal after one more row: a clean stop, reported as such.
    const stop = new AbortController();
    const stopping = (text: string): DerivedMathsKey | undefined => {
      stop.abort();
      return deriveFromIngestion(text);
    };
    const stopped = await sweepMathsKeys(catalog, stopping, { pageSize: 2, signal: stop.signal });
    expect(stopped).toMatchObject({ examined: 1, rekeyed: 1, stopped: true });

    // Resumed: the rest is re-keyed; what was done is not looked at again.
    const resumed = await sweepMathsKeys(catalog, deriveFromIngestion, { pageSize: 2 });
    expect(resumed).toEqual({ examined: 6, rekeyed: 3, current: 1, unmatched: 2, unnamed: 0, raced: 0, stopped: false, version: 'maths-sig/v3' });

    // Re-keyed rows carry today's key and names; the reading confidence is kept.
    for (const text of Object.values(V2_TEXTS)) {
      const stored = await row(text);
      const today = deriveFromIngestion(text);
      expect(stored.maths_hash).toBe(today?.hash);
      expect(stored.maths_canonical).toBe(today?.canonical);
      expect(stored.maths_unknowns).toEqual(today?.unknowns);
    }
    expect((await row(V2_TEXTS.arithmetic)).maths_unknowns).toEqual([]);
    expect((await row(V2_TEXTS.linear)).maths_confidence).toBeCloseTo(0.93, 6);
    // What it could not prove is exactly as it was.
    expect((await row('solve 2x+1=9')).maths_canonical).toBe('v1 form');
    expect((await row('solve fory: sy-4=2y+11')).maths_canonical).toBe('v2 misread');
    // Nothing but the maths key changed, on any row.
    expect(await keptColumns()).toEqual(before);

    // After: a renaming now meets the old problem, through the bijection; same names are served as they are.
    const renamed = await mathsHit('solve y + x = 10, y - x = 2');
    expect(renamed?.problem.assetVersionId).toBe('av-1');
    expect(new Map(renamed?.relabel?.map((r) => [r.from, r.to]))).toEqual(new Map([['x', 'y'], ['y', 'x']]));
    expect((await mathsHit('solve 3n + 7 = 22'))?.relabel).toEqual([{ from: 'k', to: 'n' }]);
    expect((await mathsHit(V2_TEXTS.system))?.relabel).toBeUndefined();
    // The role-changed question ("If b = 2a …, find a") still never meets "If a = 2b …, find a".
    expect(await mathsHit('if b = 2a and a + b = 9, find a')).toBeUndefined();

    // Run again: nothing to do, nothing written.
    const settled = await wholeTable();
    expect(await sweepMathsKeys(catalog, deriveFromIngestion)).toEqual({ examined: 3, rekeyed: 0, current: 1, unmatched: 2, unnamed: 0, raced: 0, stopped: false });
    expect(await wholeTable()).toEqual(settled);
  });
});

describe('maths key sweep beside a live re-index (real PostgreSQL)', () => {
  let pool: pg.Pool;
  let catalog: PgProblemCatalog;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabase('maths_key_race'), max: 2 });
    await ensureProblemCatalogTables(pool);
    catalog = new PgProblemCatalog(pool);
  });

  afterAll(async () => {
    await pool.end();
  });

  it('lets a concurrent re-index win over the sweep', async () => {
    const text = 'solve 7r-3=18';
    await catalog.upsert({ assetVersionId: 'av-race', normalisedText: text, textSha256: sha(text), maths: v2Maths(text) });
    const today = deriveFromIngestion(text);
    if (today?.unknowns === undefined) throw new Error('no v3 key');
    // The live service re-indexes the row (now with names and a new reading confidence) between the sweep's read and its write.
    const racing: MathsKeyCatalog = {
      mathsKeysWithoutNames: (after, limit) => catalog.mathsKeysWithoutNames(after, limit),
      replaceMathsKey: async (problem, next) => {
        if (problem.assetVersionId === 'av-race') {
          await catalog.upsert({
            assetVersionId: 'av-race',
            normalisedText: text,
            textSha256: sha(text),
            maths: { hash: today.hash, canonical: today.canonical, intent: today.intent, numbers: [...today.numbers], confidence: 0.5, unknowns: [...(today.unknowns ?? [])] },
          });
        }
        return catalog.replaceMathsKey(problem, next);
      },
    };
    const result = await sweepMathsKeys(racing, deriveFromIngestion);
    expect(result).toEqual({ examined: 1, rekeyed: 0, current: 0, unmatched: 0, unnamed: 0, raced: 1, stopped: false, version: 'maths-sig/v3' });
    const { rows } = await pool.query<{ maths_confidence: number }>(`select maths_confidence from retrieval.indexed_problems where asset_version_id = 'av-race'`);
    expect(rows[0]?.maths_confidence).toBe(0.5);
  });
});
