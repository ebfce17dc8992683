import { computeProblemSignature, toContractSignature } from '../apps/ingestion/src/public-api.js';
import type { PgProblemCatalog } from '../apps/retrieval/src/public-api.js';

/*
 * The maths re-key sweep (issue 24, ADR 0030). A maths key is looked up only under the current signature
 * version: a key under an older one was computed by another reading of the maths (before maths-sig/v4,
 * the signature had a lexer of its own beside the engine's), so it may key another problem, and it is
 * never matched. The sweep re-derives each such row's key from its stored normalised text with today's
 * signature (the engine's reading) and re-keys the row; a row whose text gives no key today (refused,
 * no maths, names the contract cannot carry, text today's normalisation would not store) has its key
 * cleared, so the problem is solved again when asked, never served through a possibly wrong key.
 *
 * Safe to kill and to re-run: each row is one compare-and-set statement (replaceMathsKey), so a row is
 * either as it was or fully re-keyed; re-keyed and cleared rows leave the selection (rows not at the
 * current version), so a re-run resumes with what is left and a finished sweep finds nothing to do.
 * Only the catalogue's maths columns change: the vectors' payloads hold no maths, the pHash is untouched.
 */

/** A problem's maths key as today's signature derives it from the normalised text (the contract's `maths`). */
export interface DerivedMathsKey {
  readonly version: string;
  readonly hash: string;
  readonly canonical: string;
  readonly intent: string;
  readonly numbers: readonly string[];
  /** Absent when the names do not fit the contract: such a key is cleared (never served without names).  */
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

export type MathsKeyCatalog = Pick<PgProblemCatalog, 'mathsKeysNotAt' | 'replaceMathsKey'>;

export interface MathsKeySweepOptions {
  /** Rows read per page (default 500). */
  readonly pageSize?: number;
  /** Count what would change, write nothing. */
  readonly dryRun?: boolean;
  /** Checked between rows: the sweep stops cleanly, and a later run resumes. */
  readonly signal?: AbortSignal;
}

export interface MathsKeySweepResult {
  /** Rows keyed under another version than the current one that were looked at. */
  readonly examined: number;
  /** Re-keyed to the current version (or, in a dry run, that would be). */
  readonly rekeyed: number;
  /** Key cleared: the text gives no current key (or none with names); the problem is solved again when asked. */
  readonly cleared: number;
  /** Changed by someone else (a re-index) between the read and the write: theirs stands. */
  readonly raced: number;
  /** Stopped by the signal before the end. */
  readonly stopped: boolean;
  /** The version the rows were re-keyed to. */
  readonly version: string;
}

/** Re-key to `key`, or clear the key (the text gives none under the current version). */
export type MathsKeyVerdict = { readonly kind: 'rekey'; readonly key: DerivedMathsKey & { readonly unknowns: readonly string[] } } | { readonly kind: 'clear' };

/** What to do with one stored row not at the current version, given today's derivation of its text. */
export function mathsKeyVerdict(derived: DerivedMathsKey | undefined): MathsKeyVerdict {
  if (derived?.unknowns === undefined) return { kind: 'clear' };
  return { kind: 'rekey', key: { ...derived, unknowns: derived.unknowns } };
}

/** Re-keys (or clears) every row not at `version`, page by page in doc id order; see the note at the top. */
export async function sweepMathsKeys(catalog: MathsKeyCatalog, derive: DeriveMathsKey, version: string, options: MathsKeySweepOptions = {}): Promise<MathsKeySweepResult> {
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? 500));
  const counts = { examined: 0, rekeyed: 0, cleared: 0, raced: 0 };
  let after = 0;
  for (;;) {
    const page = await catalog.mathsKeysNotAt(version, after, pageSize);
    for (const problem of page) {
      if (options.signal?.aborted === true) return { ...counts, stopped: true, version };
      after = problem.docId;
      counts.examined += 1;
      const derived = derive(problem.normalisedText);
      // A derivation under another version (a build older than the sweep's target) is no current key.
      const verdict = mathsKeyVerdict(derived?.version === version ? derived : undefined);
      const next = verdict.kind === 'rekey' ? verdict.key : undefined;
      if (options.dryRun === true || (await catalog.replaceMathsKey(problem, next))) counts[verdict.kind === 'rekey' ? 'rekeyed' : 'cleared'] += 1;
      else counts.raced += 1;
    }
    if (page.length < pageSize) return { ...counts, stopped: false, version };
  }
}
