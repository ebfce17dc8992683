import { computeProblemSignature, toContractSignature } from '../apps/ingestion/src/public-api.js';
import type { DocumentMaths, IndexedProblem, PgProblemCatalog, WithdrawalOutcome } from '../apps/retrieval/src/public-api.js';

/*
 * The maths reading sweep (issue 24, ADR 0030). A maths key is looked up only under the current signature
 * version: a key under an older one was computed by another reading of the maths, so it may key another
 * problem, and it is never matched. The sweep re-derives each such row's key from its stored normalised
 * text with today's signature (the engine's reading) and judges the row:
 * - today's reading is the stored one (same canonical form, intent and names): the stored answer is an
 *   answer to it, so the row is re-keyed (or, when its names do not fit the contract, its key cleared:
 *   found again by its exact text, never through a renaming);
 * - today's reading differs, or the text gives none (refused, no maths, not what today's normalisation
 *   stores): the stored answer was solved from another reading ("x|x| < 4" answered as x < 4), so the
 *   problem is withdrawn from every index of every retrieval replica (WithdrawProblem), with why. The
 *   next copy of its text misses, is solved by today's engine and is indexed as a new asset version.
 *   Re-keying it, or clearing its key, would still serve the old answer to an exact copy of the text.
 *
 * Safe to kill and to re-run: each row is one compare-and-set (replaceMathsKey, or WithdrawProblem
 * applied only while the row holds what was judged), so a row is either as it was or fully done; done
 * rows leave the selection (live rows not at the current version), so a re-run resumes with what is left
 * and a finished sweep finds nothing to do.
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

/** Withdraws one row (WithdrawProblem through the retrieval service); resolves with retrieval's outcome. */
export type WithdrawStoredAnswer = (problem: IndexedProblem & { readonly maths: DocumentMaths }, reason: string) => Promise<WithdrawalOutcome>;

export interface MathsKeySweepOptions {
  /** Rows read per page (default 500). */
  readonly pageSize?: number;
  /** Count what would change, write nothing. */
  readonly dryRun?: boolean;
  /** Checked between rows: the sweep stops cleanly, and a later run resumes. */
  readonly signal?: AbortSignal;
}

export interface MathsKeySweepResult {
  /** Live rows keyed under another version than the current one that were looked at. */
  readonly examined: number;
  /** Re-keyed to the current version (or, in a dry run, that would be): today's reading is the stored one. */
  readonly rekeyed: number;
  /** Key cleared: today's reading is the stored one, but its names do not fit the contract. */
  readonly cleared: number;
  /** Withdrawn from every index: today's reading differs, or gives none. */
  readonly withdrawn: number;
  /** Changed by someone else (a re-index) between the read and the write: theirs stands. */
  readonly raced: number;
  /** Stopped by the signal before the end. */
  readonly stopped: boolean;
  /** The version the rows were re-keyed to. */
  readonly version: string;
}

type CurrentKey = DerivedMathsKey & { readonly unknowns: readonly string[] };

/** Re-key to `key`; clear the key; or withdraw the stored answer (it was solved from another reading). */
export type MathsKeyVerdict =
  | { readonly kind: 'rekey'; readonly key: CurrentKey }
  | { readonly kind: 'clear' }
  | { readonly kind: 'withdraw'; readonly reason: string };

const REASON_LIMIT = 1000;

/**
 * What to do with one stored row not at the current version, given today's derivation of its text (a
 * derivation under another version than the sweep's target counts as none). The reading is the same
 * when the canonical form and intent are, and the names (where the row kept them) too: a stored answer
 * is written in its problem's names.
 */
export function mathsKeyVerdict(stored: DocumentMaths, derived: DerivedMathsKey | undefined): MathsKeyVerdict {
  const storedAs = `${stored.version ?? 'an unversioned signature'} read ${stored.intent} ${stored.canonical}${stored.unknowns === undefined ? '' : ` in ${stored.unknowns.join(', ') || 'no unknowns'}`}`;
  const withdraw = (today: string): MathsKeyVerdict => ({ kind: 'withdraw', reason: `${today}; ${storedAs}`.slice(0, REASON_LIMIT) });
  if (derived === undefined) return withdraw('today\'s reading gives no maths key (refused, no maths, or not stored so today)');
  const names = derived.unknowns;
  const sameNames = stored.unknowns === undefined || (names !== undefined && names.join('\u0000') === stored.unknowns.join('\u0000'));
  if (derived.canonical !== stored.canonical || derived.intent !== stored.intent || !sameNames) {
    return withdraw(`${derived.version} reads ${derived.intent} ${derived.canonical}${names === undefined ? '' : ` in ${names.join(', ') || 'no unknowns'}`}`);
  }
  return names === undefined ? { kind: 'clear' } : { kind: 'rekey', key: { ...derived, unknowns: names } };
}

/** Judges every live row not at `version`, page by page in doc id order; see the note at the top. */
export async function sweepMathsKeys(
  catalog: MathsKeyCatalog,
  derive: DeriveMathsKey,
  version: string,
  withdraw: WithdrawStoredAnswer,
  options: MathsKeySweepOptions = {},
): Promise<MathsKeySweepResult> {
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? 500));
  const counts = { examined: 0, rekeyed: 0, cleared: 0, withdrawn: 0, raced: 0 };
  let after = 0;
  for (;;) {
    const page = await catalog.mathsKeysNotAt(version, after, pageSize);
    for (const problem of page) {
      if (options.signal?.aborted === true) return { ...counts, stopped: true, version };
      after = problem.docId;
      const stored = problem.maths;
      if (stored === undefined) continue;
      counts.examined += 1;
      const derived = derive(problem.normalisedText);
      const verdict = mathsKeyVerdict(stored, derived?.version === version ? derived : undefined);
      counts[await applyVerdict(verdict, { ...problem, maths: stored }, catalog, withdraw, options.dryRun === true)] += 1;
    }
    if (page.length < pageSize) return { ...counts, stopped: false, version };
  }
}

async function applyVerdict(
  verdict: MathsKeyVerdict,
  problem: IndexedProblem & { readonly maths: DocumentMaths },
  catalog: MathsKeyCatalog,
  withdraw: WithdrawStoredAnswer,
  dryRun: boolean,
): Promise<'rekeyed' | 'cleared' | 'withdrawn' | 'raced'> {
  const done = verdict.kind === 'rekey' ? 'rekeyed' : verdict.kind === 'clear' ? 'cleared' : 'withdrawn';
  if (dryRun) return done;
  if (verdict.kind === 'withdraw') {
    const outcome = await withdraw(problem, verdict.reason);
    return outcome === 'withdrawn' || outcome === 'already_withdrawn' ? 'withdrawn' : 'raced';
  }
  return (await catalog.replaceMathsKey(problem, verdict.kind === 'rekey' ? verdict.key : undefined)) ? done : 'raced';
}
