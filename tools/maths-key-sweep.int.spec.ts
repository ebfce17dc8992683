import { createHash } from 'node:crypto';
import { computeProblemSignature, MATHS_SIGNATURE_VERSION, normaliseText, toContractSignature } from '../apps/ingestion/src/public-api.js';
import { DEFAULT_SEARCH_SETTINGS, ensureProblemCatalogTables, type IndexedProblem, mathsStage, PgProblemCatalog, queryFromSignature } from '../apps/retrieval/src/public-api.js';
import { freshDatabase } from '@openpaw/testing';
import pg from 'pg';
import { type DerivedMathsKey, deriveFromIngestion, type MathsKeyCatalog, sweepMathsKeys, type WithdrawStoredAnswer } from './maths-key-sweep.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A key an older ingestion sent for a typed text (maths-sig/v3: names kept, no version stored): its hash
 * is not today's; its canonical form is today's reading unless another is given ("sqrt16+3" was v0 + 3).
 */
function olderMaths(text: string, unknowns: readonly string[], confidence = 1, canonical?: string): NonNullable<IndexedProblem['maths']> {
  const today = deriveFromIngestion(text);
  return { hash: sha(`maths-sig/v3 ${text}`), canonical: canonical ?? today?.canonical ?? '', intent: today?.intent ?? 'solve', numbers: [...(today?.numbers ?? [])], confidence, unknowns: [...unknowns] };
}

/** Normalised texts indexed under an older version that today's signature reads as it did: each must be re-keyed. */
const OLDER_TEXTS = {
  system: 'solve x+y=10, x-y=2',
  target: 'if a=2b and a+b=9, find a',
  linear: 'solve 3k+7=22',
  arithmetic: 'evaluate 12*13',
} as const;
// The old lexer read "sqrt16" as an unknown: keyed v0 + 3, the key of "evaluate y+3" asking nothing. Its answer is of another reading.
const MISREAD = 'evaluate sqrt16+3';
// Text the current reader refuses (a letter run in the maths): its stored answer is of the shortened equation.
const REFUSED = 'solve fory: sy-4=2y+11';

describe('maths key sweep to the current signature version (real PostgreSQL)', () => {
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
    await add(OLDER_TEXTS.system, olderMaths(OLDER_TEXTS.system, deriveFromIngestion(OLDER_TEXTS.system)?.unknowns ?? []));
    await add(OLDER_TEXTS.target, olderMaths(OLDER_TEXTS.target, deriveFromIngestion(OLDER_TEXTS.target)?.unknowns ?? []));
    // Read from an image: its reading confidence and pHash must survive the re-key.
    await add(OLDER_TEXTS.linear, olderMaths(OLDER_TEXTS.linear, ['k'], 0.93), { imageSha256: sha('image'), phash: 'a5c30f963c5ae187' });
    await add(OLDER_TEXTS.arithmetic, olderMaths(OLDER_TEXTS.arithmetic, []));
    await add(MISREAD, olderMaths(MISREAD, ['sqrt16'], 1, '(+ 3 v0)'));
    await add(REFUSED, { hash: sha('maths-sig/v2 misread'), canonical: 'v2 misread', intent: 'solve', numbers: ['11', '2', '4'], confidence: 1 });
    // Indexed under the current version: not selected at all.
    const current = deriveFromIngestion('solve 4t-1=11');
    await add('solve 4t-1=11', { hash: current?.hash ?? '', canonical: current?.canonical ?? '', intent: 'solve', numbers: ['1', '11', '4'], confidence: 1, unknowns: current?.unknowns ?? [], version: MATHS_SIGNATURE_VERSION });
    // No maths.
    await add('write a short essay about photosynthesis', undefined);
  });

  afterAll(async () => {
    await pool.end();
  });

  /** The catalogue's own withdrawal, as the retrieval service applies WithdrawProblem (the service path is maths-reading-sweep.int.spec.ts). */
  const withdraw: WithdrawStoredAnswer = async (problem, reason) =>
    (await catalog.withdraw(problem.assetVersionId, { textSha256: problem.textSha256, mathsHash: problem.maths.hash, ...(problem.maths.version === undefined ? {} : { mathsVersion: problem.maths.version }) }, reason)).outcome;

  /** Every column but the maths key, the withdrawal and the timestamp, per row: what the sweep must never change. */
  async function keptColumns(): Promise<unknown[]> {
    const { rows } = await pool.query<Record<string, unknown>>(
      `select doc_id, asset_version_id, problem_id, normalised_text, text_sha256, image_sha256, phash, phash_version, quality, text_dominant,
              subject, keywords, search_vector::text, indexed_at
         from retrieval.indexed_problems order by doc_id`,
    );
    return rows;
  }

  async function wholeTable(): Promise<unknown[]> {
    const { rows } = await pool.query<Record<string, unknown>>('select *, search_vector::text from retrieval.indexed_problems order by doc_id');
    return rows;
  }

  type MathsColumns = { maths_hash: string | null; maths_canonical: string | null; maths_unknowns: string[] | null; maths_confidence: number | null; maths_version: string | null };
  async function row(text: string): Promise<MathsColumns> {
    const { rows } = await pool.query<MathsColumns>(
      'select maths_hash, maths_canonical, maths_unknowns, maths_confidence, maths_version from retrieval.indexed_problems where normalised_text = $1',
      [text],
    );
    if (rows[0] === undefined) throw new Error(`no row for ${text}`);
    return rows[0];
  }

  /** Retrieval's maths stage for a question typed now. */
  async function mathsHit(question: string) {
    const query = queryFromSignature(toContractSignature(computeProblemSignature(question)));
    return mathsStage(query, { catalog }, DEFAULT_SEARCH_SETTINGS, () => undefined);
  }

  it('re-keys every row under an older version read as it was, withdraws the rest, survives a crash and a stop, resumes, and then finds nothing to do', async () => {
    const before = await keptColumns();
    const untouched = await wholeTable();

    // Before: no row keyed under an older version is found by a current question, in any names.
    for (const text of Object.values(OLDER_TEXTS)) expect(await mathsHit(text)).toBeUndefined();
    expect((await mathsHit('solve 4t - 1 = 11'))?.problem.assetVersionId).toBe('av-7');

    // A dry run counts and writes nothing.
    const dry = await sweepMathsKeys(catalog, deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw, { dryRun: true, pageSize: 2 });
    expect(dry).toEqual({ examined: 6, rekeyed: 4, cleared: 0, withdrawn: 2, raced: 0, stopped: false, version: MATHS_SIGNATURE_VERSION });
    expect(await wholeTable()).toEqual(untouched);

    // A crash in the middle of a page (the second row derived): the first row is re-keyed, the rest as they were.
    let derived = 0;
    const crashing = (text: string): DerivedMathsKey | undefined => {
      derived += 1;
      if (derived === 2) throw new Error('killed');
      return deriveFromIngestion(text);
    };
    await expect(sweepMathsKeys(catalog, crashing, MATHS_SIGNATURE_VERSION, withdraw, { pageSize: 2 })).rejects.toThrow('killed');
    expect((await row(OLDER_TEXTS.system)).maths_version).toBe(MATHS_SIGNATURE_VERSION);
    expect((await row(OLDER_TEXTS.target)).maths_version).toBeNull();
    // Half-swept: the re-keyed row is found, the rest are not (never through the older key).
    expect((await mathsHit(OLDER_TEXTS.system))?.problem.normalisedText).toBe(OLDER_TEXTS.system);
    expect(await mathsHit(OLDER_TEXTS.target)).toBeUndefined();

    // Stopped by a signal after one more row: a clean stop, reported as such.
    const stop = new AbortController();
    const stopping = (text: string): DerivedMathsKey | undefined => {
      stop.abort();
      return deriveFromIngestion(text);
    };
    const stopped = await sweepMathsKeys(catalog, stopping, MATHS_SIGNATURE_VERSION, withdraw, { pageSize: 2, signal: stop.signal });
    expect(stopped).toMatchObject({ examined: 1, rekeyed: 1, stopped: true });

    // Resumed: the rest is re-keyed or withdrawn; what was done is not looked at again.
    const resumed = await sweepMathsKeys(catalog, deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw, { pageSize: 2 });
    expect(resumed).toEqual({ examined: 4, rekeyed: 2, cleared: 0, withdrawn: 2, raced: 0, stopped: false, version: MATHS_SIGNATURE_VERSION });

    // Re-keyed rows carry today's key, names and version; the reading confidence is kept.
    for (const text of Object.values(OLDER_TEXTS)) {
      const stored = await row(text);
      const today = deriveFromIngestion(text);
      expect(stored).toMatchObject({ maths_hash: today?.hash, maths_canonical: today?.canonical, maths_unknowns: today?.unknowns, maths_version: MATHS_SIGNATURE_VERSION });
    }
    expect((await row(OLDER_TEXTS.arithmetic)).maths_unknowns).toEqual([]);
    expect((await row(OLDER_TEXTS.linear)).maths_confidence).toBeCloseTo(0.93, 6);
    // Read otherwise today, or not at all: withdrawn with why, served by no tier (not even to an exact copy of the text).
    for (const text of [MISREAD, REFUSED]) {
      const { rows } = await pool.query<{ withdrawn_reason: string | null; withdrawn_at: Date | null }>('select withdrawn_reason, withdrawn_at from retrieval.indexed_problems where normalised_text = $1', [text]);
      expect(rows[0]?.withdrawn_at).toBeInstanceOf(Date);
      expect(await catalog.findByTextSha256(sha(text))).toEqual([]);
      expect(await mathsHit(text)).toBeUndefined();
    }
    const { rows: reasons } = await pool.query<{ withdrawn_reason: string }>('select withdrawn_reason from retrieval.indexed_problems where normalised_text = $1', [MISREAD]);
    expect(reasons[0]?.withdrawn_reason).toBe(`${MATHS_SIGNATURE_VERSION} reads evaluate (+ (sqrt 16) 3) in no unknowns; an unversioned signature read evaluate (+ 3 v0) in sqrt16`);
    // Nothing but the maths key changed, on any row.
    expect(await keptColumns()).toEqual(before);

    // After: each problem is found by its own question, a renaming through the bijection.
    for (const text of Object.values(OLDER_TEXTS)) expect((await mathsHit(text))?.problem.normalisedText).toBe(text);
    const renamed = await mathsHit('solve y + x = 10, y - x = 2');
    expect(renamed?.problem.assetVersionId).toBe('av-1');
    expect(new Map(renamed?.relabel?.map((r) => [r.from, r.to]))).toEqual(new Map([['x', 'y'], ['y', 'x']]));
    expect((await mathsHit('solve 3n + 7 = 22'))?.relabel).toEqual([{ from: 'k', to: 'n' }]);
    // The role-changed question ("If b = 2a …, find a") still never meets "If a = 2b …, find a".
    expect(await mathsHit('if b = 2a and a + b = 9, find a')).toBeUndefined();

    // Run again: nothing to do, nothing written.
    const settled = await wholeTable();
    expect(await sweepMathsKeys(catalog, deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw)).toEqual({ examined: 0, rekeyed: 0, cleared: 0, withdrawn: 0, raced: 0, stopped: false, version: MATHS_SIGNATURE_VERSION });
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
    await catalog.upsert({ assetVersionId: 'av-race', normalisedText: text, textSha256: sha(text), maths: olderMaths(text, ['r']) });
    const today = deriveFromIngestion(text);
    if (today?.unknowns === undefined) throw new Error('no current key');
    // The live service re-indexes the row (now with names and a new reading confidence) between the sweep's read and its write.
    const racing: MathsKeyCatalog = {
      mathsKeysNotAt: (version, after, limit) => catalog.mathsKeysNotAt(version, after, limit),
      replaceMathsKey: async (problem, next) => {
        if (problem.assetVersionId === 'av-race') {
          await catalog.upsert({
            assetVersionId: 'av-race',
            normalisedText: text,
            textSha256: sha(text),
            maths: { hash: today.hash, canonical: today.canonical, intent: today.intent, numbers: [...today.numbers], confidence: 0.5, unknowns: [...(today.unknowns ?? [])], version: today.version },
          });
        }
        return catalog.replaceMathsKey(problem, next);
      },
    };
    const result = await sweepMathsKeys(racing, deriveFromIngestion, MATHS_SIGNATURE_VERSION, () => Promise.reject(new Error('nothing to withdraw')));
    expect(result).toEqual({ examined: 1, rekeyed: 0, cleared: 0, withdrawn: 0, raced: 1, stopped: false, version: MATHS_SIGNATURE_VERSION });
    const { rows } = await pool.query<{ maths_confidence: number }>(`select maths_confidence from retrieval.indexed_problems where asset_version_id = 'av-race'`);
    expect(rows[0]?.maths_confidence).toBe(0.5);
  });
});
