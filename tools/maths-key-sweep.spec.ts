import { MATHS_SIGNATURE_VERSION, normaliseText } from '../apps/ingestion/src/public-api.js';
import type { DocumentMaths, IndexedProblem, WithdrawalOutcome } from '../apps/retrieval/src/public-api.js';
import { type DerivedMathsKey, deriveFromIngestion, type MathsKeyCatalog, mathsKeyVerdict, sweepMathsKeys, type WithdrawStoredAnswer } from './maths-key-sweep.js';

/** Today's key of a typed question, as ingestion stores it (its text normalised first). */
function today(question: string): { text: string; key: DerivedMathsKey } {
  const text = normaliseText(question);
  const key = deriveFromIngestion(text);
  if (key === undefined) throw new Error(`no key today for ${question}`);
  return { text, key };
}

/** A stored key as an older version kept it: today's reading, unless overridden. */
function storedAs(key: DerivedMathsKey, overrides: Partial<DocumentMaths> = {}): DocumentMaths {
  const { hash: _hash, version: _version, unknowns, ...reading } = key;
  return { ...reading, hash: 'f'.repeat(64), version: 'maths-sig/v10', confidence: 1, ...(unknowns === undefined ? {} : { unknowns }), ...overrides };
}

describe('mathsKeyVerdict: re-key a row whose reading is today\'s, withdraw one whose reading changed', () => {
  it('re-keys when today reads the text as the stored key did (canonical form, intent, names)', () => {
    const { key } = today('Solve 3k + 7 = 22');
    expect(mathsKeyVerdict(storedAs(key), key)).toEqual({ kind: 'rekey', key: { ...key, unknowns: ['k'] } });
  });

  it('re-keys a row indexed before names were kept when the canonical form and intent agree', () => {
    const { key } = today('Solve x + y = 10, x - y = 2');
    const { unknowns: _names, ...withoutNames } = storedAs(key);
    expect(mathsKeyVerdict(withoutNames, key).kind).toBe('rekey');
  });

  it('clears the key (exact text still serves it) when the reading agrees but neither side has names that fit the contract', () => {
    const { key } = today('Solve 3k + 7 = 22');
    const { unknowns: _names, ...nameless } = key;
    const { unknowns: _stored, ...storedNameless } = storedAs(key);
    expect(mathsKeyVerdict(storedNameless, nameless)).toEqual({ kind: 'clear' });
    // Names kept then but none today that fit: read otherwise (an older reader took "sqrt16" for a name).
    expect(mathsKeyVerdict(storedAs(key), nameless).kind).toBe('withdraw');
  });

  it('withdraws "x|x| < 4" stored under v10\'s reading x < 4, naming both readings', () => {
    const { key } = today('Solve x|x| < 4');
    const verdict = mathsKeyVerdict(storedAs(key, { canonical: '(< x 4)' }), key);
    expect(verdict.kind).toBe('withdraw');
    if (verdict.kind !== 'withdraw') return;
    expect(verdict.reason).toContain(`${MATHS_SIGNATURE_VERSION} reads ${key.intent} ${key.canonical}`);
    expect(verdict.reason).toContain('maths-sig/v10 read');
    expect(verdict.reason).toContain('(< x 4)');
  });

  it('withdraws when the intent or the names changed, or today gives no key', () => {
    const { key } = today('Solve 3k + 7 = 22');
    expect(mathsKeyVerdict(storedAs(key, { intent: 'evaluate' }), key).kind).toBe('withdraw');
    expect(mathsKeyVerdict(storedAs(key, { unknowns: ['sk'] }), key).kind).toBe('withdraw');
    const refused = mathsKeyVerdict(storedAs(key), deriveFromIngestion(normaliseText('solve fory: sy-4=2y+11')));
    expect(refused).toMatchObject({ kind: 'withdraw', reason: expect.stringContaining('gives no maths key') });
  });

  it('keeps the recorded reason within the contract\'s 1000 characters', () => {
    const { key } = today('Solve 3k + 7 = 22');
    const verdict = mathsKeyVerdict(storedAs(key, { canonical: 'y'.repeat(2000) }), key);
    expect(verdict.kind === 'withdraw' && verdict.reason.length).toBe(1000);
  });
});

describe('sweepMathsKeys: what it writes, and how often', () => {
  const linear = today('Solve 3k + 7 = 22');
  const absolute = today('Solve x|x| < 4');
  const rows: IndexedProblem[] = [
    { docId: 1, assetVersionId: 'av-1', normalisedText: linear.text, textSha256: 'a'.repeat(64), maths: storedAs(linear.key) },
    { docId: 2, assetVersionId: 'av-2', normalisedText: absolute.text, textSha256: 'b'.repeat(64), maths: storedAs(absolute.key, { canonical: '(< x 4)' }) },
    { docId: 3, assetVersionId: 'av-3', normalisedText: absolute.text, textSha256: 'b'.repeat(64), maths: storedAs(absolute.key, { canonical: '(< x 4)' }) },
  ];

  function harness(outcomes: Record<string, WithdrawalOutcome>) {
    const rekeyed: string[] = [];
    const withdrawn: { id: string; reason: string }[] = [];
    const catalog: MathsKeyCatalog = {
      mathsKeysNotAt: (_version, after, limit) => Promise.resolve(rows.filter((r) => r.docId > after).slice(0, limit)),
      replaceMathsKey: (problem) => {
        rekeyed.push(problem.assetVersionId);
        return Promise.resolve(true);
      },
    };
    const withdraw: WithdrawStoredAnswer = (problem, reason) => {
      withdrawn.push({ id: problem.assetVersionId, reason });
      return Promise.resolve(outcomes[problem.assetVersionId] ?? 'withdrawn');
    };
    return { catalog, withdraw, rekeyed, withdrawn };
  }

  it('re-keys the unchanged reading, withdraws the changed ones, and counts a row re-indexed meanwhile as raced', async () => {
    const { catalog, withdraw, rekeyed, withdrawn } = harness({ 'av-3': 'changed' });
    const result = await sweepMathsKeys(catalog, deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw, { pageSize: 2 });
    expect(result).toEqual({ examined: 3, rekeyed: 1, cleared: 0, withdrawn: 1, raced: 1, stopped: false, version: MATHS_SIGNATURE_VERSION });
    expect(rekeyed).toEqual(['av-1']);
    expect(withdrawn.map((w) => w.id)).toEqual(['av-2', 'av-3']);
  });

  it('counts a row an earlier run withdrew (its answer lost) as withdrawn', async () => {
    const { catalog, withdraw } = harness({ 'av-2': 'already_withdrawn' });
    expect((await sweepMathsKeys(catalog, deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw)).withdrawn).toBe(2);
  });

  it('writes and sends nothing in a dry run', async () => {
    const { catalog, withdraw, rekeyed, withdrawn } = harness({});
    const result = await sweepMathsKeys(catalog, deriveFromIngestion, MATHS_SIGNATURE_VERSION, withdraw, { dryRun: true });
    expect(result).toMatchObject({ examined: 3, rekeyed: 1, withdrawn: 2 });
    expect([...rekeyed, ...withdrawn]).toEqual([]);
  });

  it('judges a derivation under another version than its target as no key today', async () => {
    const { catalog, withdraw, rekeyed } = harness({});
    const result = await sweepMathsKeys(catalog, deriveFromIngestion, 'maths-sig/v99', withdraw);
    expect(result).toMatchObject({ examined: 3, rekeyed: 0, withdrawn: 3 });
    expect(rekeyed).toEqual([]);
  });
});
