import { computeProblemSignature, toContractSignature } from '../apps/ingestion/src/public-api.js';
import type { IndexedProblem, PgProblemCatalog } from '../apps/retrieval/src/public-api.js';

/*
 * The maths-sig/v3 re-key sweep (issue 24, ADR 0030). Problems indexed before v3 keep a v2 maths key
 * (the unknowns' names inside the hash, no names beside it): a query finds them only by its
 * `previousHash`, in the same names, never under a renaming. The sweep re-derives each such key from
 * the problem's stored normalised text with today's signature and re-keys the row, but only when that
 * derivation provably describes the stored key: its v2 hash must equal the stored hash. Anything else
 * (a key from older rules, text that no longer reads as maths, names the contract cannot carry) is left
 * exactly as it is, still found as before.
 *
 * Safe to kill and to re-run: each row is one compare-and-set statement (replaceMathsKey), so a row is
 * either as it was or fully re-keyed, both found by a v3 query (hash or previousHash); re-keyed rows
 * leave the selection, so a re-run resumes with what is left and a finished sweep finds nothing to do.
 * Only the catalogue's maths columns change: the vectors' payloads hold no maths, the pHash is untouched.
 */

/** A problem's maths key as today's signature derives it from the normalised text (the contract's `maths`). */
export interface DerivedMathsKey {
  readonly version: string;
  readonly hash: string;
  /** The hash under the version before: a stored key equal to it is this very problem in these names. */
  readonly previousHash?: string;
  readonly canonical: string;
  readonly intent: string;
  readonly numbers: readonly string[];
  /** Absent when the names do not fit the contract: such a key is left to the dual read. */
  readonly unknowns?: readonly string[];
}

/** Today's signature of a stored normalised text; undefined when the text holds no maths that parses. */
export type DeriveMathsKey = (normalisedText: string) => DerivedMathsKey | undefined;

/**
 * Today's key of a stored text, exactly as ingestion would send it for that text typed: its signature
 * in the contract's form (which drops names the contract cannot carry). A text that normalises to
 * something else was not stored by today's normalisation, so it derives nothing.
 */
export function deriveFromIngestion(normalisedText: string): DerivedMathsKey | undefined {
  const signature = toContractSignature(computeProblemSignature(normalisedText));
  return signature.normalizedText === normalisedText ? signature.maths : undefined;
}

export type MathsKeyCatalog = Pick<PgProblemCatalog, 'mathsKeysWithoutNames' | 'replaceMathsKey'>;

export interface MathsKeySweepOptions {
  /** Rows read per page (default 500). */
  readonly pageSize?: number;
  /** Count what would change, write nothing. */
  readonly dryRun?: boolean;
  /** Checked between rows: the sweep stops cleanly, and a later run resumes. */
  readonly signal?: AbortSignal;
}

export interface MathsKeySweepResult {
  /** Rows with a maths key and no unknowns' names that were looked at. */
  readonly examined: number;
  /** Re-keyed to the current version (or, in a dry run, that would be). */
  readonly rekeyed: number;
  /** Already under the current version, its names beyond what the contract carries: nothing to do. */
  readonly current: number;
  /** Today's signature of the text is not the stored key's (older rules, or no maths now): left as it is. */
  readonly unmatched: number;
  /** The current key's names do not fit the contract: left under the old key, found by the dual read. */
  readonly unnamed: number;
  /** Changed by someone else (a re-index) between the read and the write: theirs stands. */
  readonly raced: number;
  /** Stopped by the signal before the end. */
  readonly stopped: boolean;
  /** The version the rows were re-keyed to. */
  readonly version?: string;
}

/** Re-key to `key`, or leave the row as it is (and why). */
export type MathsKeyVerdict = { readonly kind: 'rekey'; readonly key: DerivedMathsKey } | { readonly kind: 'current' | 'unmatched' | 'unnamed' };

/** What to do with one stored row, given today's derivation of its text. */
export function mathsKeyVerdict(stored: IndexedProblem, derived: DerivedMathsKey | undefined): MathsKeyVerdict {
  const maths = stored.maths;
  if (maths === undefined || derived === undefined) return { kind: 'unmatched' };
  if (derived.hash === maths.hash) return { kind: 'current' };
  // The hash holds intent, canonical form (numbers included) and the asked-for unknown, so an equal v2
  // hash is the same problem; intent and numbers are compared too, as they are kept, not rewritten.
  if (derived.previousHash !== maths.hash || derived.intent !== maths.intent || derived.numbers.join(' ') !== [...maths.numbers].sort().join(' ')) {
    return { kind: 'unmatched' };
  }
  return derived.unknowns === undefined ? { kind: 'unnamed' } : { kind: 'rekey', key: derived };
}

/** Re-keys every row it can prove, page by page in doc id order; see the note at the top. */
export async function sweepMathsKeys(catalog: MathsKeyCatalog, derive: DeriveMathsKey, options: MathsKeySweepOptions = {}): Promise<MathsKeySweepResult> {
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? 500));
  const counts = { examined: 0, rekeyed: 0, current: 0, unmatched: 0, unnamed: 0, raced: 0 };
  let version: string | undefined;
  let after = 0;
  for (;;) {
    const page = await catalog.mathsKeysWithoutNames(after, pageSize);
    for (const problem of page) {
      if (options.signal?.aborted === true) return { ...counts, stopped: true, ...(version === undefined ? {} : { version }) };
      after = problem.docId;
      counts.examined += 1;
      const verdict = mathsKeyVerdict(problem, derive(problem.normalisedText));
      if (verdict.kind !== 'rekey') {
        counts[verdict.kind] += 1;
        continue;
      }
      version = verdict.key.version;
      if (options.dryRun === true || (await catalog.replaceMathsKey(problem, verdict.key))) counts.rekeyed += 1;
      else counts.raced += 1;
    }
    if (page.length < pageSize) return { ...counts, stopped: false, ...(version === undefined ? {} : { version }) };
  }
}
