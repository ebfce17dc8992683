import { useState } from 'preact/hooks';
import type { PaperSearch } from '../api/resources.js';
import { editedExclusions, MAX_EXCLUDED_TERMS, termsOf } from './boolean-query-terms.js';
import { feedbackOf, type ReviewMarks, withMark } from './review-marks.js';
import { cutNotes, localDropNotes, originNote } from './search-notes.js';

type Checkpoint = NonNullable<PaperSearch['checkpoint']>;
type StrategyCheckpoint = Extract<Checkpoint, { kind: 'strategy_confirmation' }>;
type ReviewCheckpoint = Extract<Checkpoint, { kind: 'result_review' }>;
type Strategy = StrategyCheckpoint['payload']['strategy'];

export type CheckpointDecision =
  | { readonly action: 'approve'; readonly revisedData?: { readonly markedRelevant: readonly string[] } }
  | { readonly action: 'edit'; readonly revisedData: unknown }
  | { readonly action: 'reject'; readonly note: string };

/** Answers `undefined` when the gateway took the decision, else why not (shown to the user). */
type Decide = (decision: CheckpointDecision) => Promise<string | undefined>;

/** The strategy the edit form shows: one boolean query per line, the keywords of each as its words. */
function queriesOf(strategy: Strategy): string {
  return strategy.queries.map((query) => query.booleanQuery).join('\n');
}

/** A year as typed: empty is no bound; anything else is sent as typed, for the gateway to accept or name. */
function yearOf(typed: string): number | null {
  return typed.trim() === '' ? null : Number(typed.trim());
}

/** What limits cut from the papers shown (nothing is cut silently). */
export function CutNotes({ notes }: { notes: readonly string[] }) {
  return notes.length === 0 ? null : (
    <ul class="cut-notes">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}

function DecisionProblem({ problem }: { problem: string | undefined }) {
  return problem === undefined ? null : (
    <p class="error" role="alert">
      {problem}
    </p>
  );
}

/**
 * Checkpoint 1: the proposed strategy (and what changed since the last iteration). Approve it, edit
 * its queries and year range (sent as a revised SearchStrategy; the gateway names a field it
 * refuses), or reject it with a note for the next iteration.
 */
export function StrategyConfirmation({ checkpoint, onDecide }: { checkpoint: StrategyCheckpoint; onDecide: Decide }) {
  const { strategy, intent, diff, origin } = checkpoint.payload;
  const from = originNote(origin);
  const [queries, setQueries] = useState(queriesOf(strategy));
  const [yearFrom, setYearFrom] = useState(strategy.filters.yearFrom?.toString() ?? '');
  const [yearTo, setYearTo] = useState(strategy.filters.yearTo?.toString() ?? '');
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const send = async (decision: CheckpointDecision): Promise<void> => {
    setBusy(true);
    setProblem(await onDecide(decision));
    setBusy(false);
  };
  const lines = queries.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  const exclusions = editedExclusions(strategy.excludedTerms, lines);
  const edited = (): CheckpointDecision => {
    const revised: Strategy = {
      ...strategy,
      // An unchanged line keeps its query (keywords, synonyms); a new one is sent as typed, its terms
      // after NOT excluded (never made required keywords).
      queries: lines.map((booleanQuery) => strategy.queries.find((query) => query.booleanQuery === booleanQuery) ?? { booleanQuery, keywords: termsOf(booleanQuery).keywords, synonyms: [] }),
      excludedTerms: exclusions.terms,
      filters: { ...strategy.filters, yearFrom: yearOf(yearFrom), yearTo: yearOf(yearTo) },
    };
    return { action: 'edit', revisedData: revised };
  };
  const changes = diff === null ? [] : [...diff.addedKeywords.map((word) => `+ ${word}`), ...diff.removedKeywords.map((word) => `− ${word}`), ...diff.addedSources.map((source) => `+ source ${source}`), ...diff.removedSources.map((source) => `− source ${source}`), ...diff.filterChanges.map((change) => `${change.field}: ${String(change.from)} → ${String(change.to)}`)];
  return (
    <section aria-labelledby="checkpoint-title" class="pending-step" data-checkpoint="strategy_confirmation">
      <h2 id="checkpoint-title">Checkpoint 1: confirm the search strategy (iteration {checkpoint.iteration})</h2>
      <p>
        Topic: <strong>{intent.topic}</strong> ({intent.intentType}); sources: {strategy.sources.join(', ')}.
      </p>
      {from !== undefined && (
        <p class="hint" data-strategy-origin={origin?.origin}>
          {from}
        </p>
      )}
      {changes.length > 0 && (
        <>
          <h3>Changes since the last iteration</h3>
          <ul class="strategy-diff">
            {changes.map((change) => (
              <li key={change}>{change}</li>
            ))}
          </ul>
        </>
      )}
      <label for="strategy-queries">Queries (one per line)</label>
      <textarea id="strategy-queries" rows={Math.max(2, strategy.queries.length + 1)} value={queries} onInput={(event) => setQueries(event.currentTarget.value)} />
      {exclusions.terms.length > 0 && (
        <p id="strategy-exclusions" class="hint">
          Excluded ({exclusions.terms.length}): {exclusions.terms.join(', ')}.
        </p>
      )}
      {exclusions.overBy > 0 && (
        <p id="strategy-exclusions-over" class="error">
          {`A strategy excludes at most ${MAX_EXCLUDED_TERMS} terms: remove ${exclusions.overBy} to search with your edits.`}
        </p>
      )}
      <label for="strategy-year-from">Published from (year, optional)</label>
      <input id="strategy-year-from" inputMode="numeric" value={yearFrom} onInput={(event) => setYearFrom(event.currentTarget.value)} />
      <label for="strategy-year-to">Published until (year, optional)</label>
      <input id="strategy-year-to" inputMode="numeric" value={yearTo} onInput={(event) => setYearTo(event.currentTarget.value)} />
      <div>
        <button type="button" disabled={busy} onClick={() => void send({ action: 'approve' })}>
          Approve the strategy
        </button>{' '}
        <button type="button" class="secondary" disabled={busy || exclusions.overBy > 0 || (queries === queriesOf(strategy) && yearOf(yearFrom) === strategy.filters.yearFrom && yearOf(yearTo) === strategy.filters.yearTo)} onClick={() => void send(edited())}>
          Search with my edits
        </button>
      </div>
      <label for="strategy-note">Note for a rejection</label>
      <input id="strategy-note" class="wide" value={note} onInput={(event) => setNote(event.currentTarget.value)} />
      <button type="button" class="secondary" disabled={busy || note.trim() === ''} onClick={() => void send({ action: 'reject', note })}>
        Reject with this note
      </button>
      <DecisionProblem problem={problem} />
    </section>
  );
}

/**
 * Checkpoint 2: the organised papers. Approve (the ones ticked relevant are kept), ask for another
 * iteration with the marks as feedback, or reject with a note. Only papers ticked "not relevant" are
 * rejected for good; a paper left unticked may come back.
 */
export function ResultReview({ checkpoint, papersTrimmed, onDecide }: { checkpoint: ReviewCheckpoint; papersTrimmed: boolean; onDecide: Decide }) {
  const { collection } = checkpoint.payload;
  const unmarkable = new Set(checkpoint.payload.unmarkablePaperIds ?? []);
  const [marks, setMarks] = useState<ReviewMarks>({});
  const shownIds = collection.papers.map((paper) => paper.id);
  const { markedRelevant: relevant, markedIrrelevant: irrelevant } = feedbackOf(shownIds, marks, unmarkable);
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const send = async (decision: CheckpointDecision): Promise<void> => {
    setBusy(true);
    setProblem(await onDecide(decision));
    setBusy(false);
  };
  return (
    <section aria-labelledby="checkpoint-title" class="pending-step" data-checkpoint="result_review">
      <h2 id="checkpoint-title">Checkpoint 2: review the results (iteration {checkpoint.iteration})</h2>
      <p>
        {collection.papers.length} papers of {collection.metadata.totalFound} found;{' '}
        {collection.metadata.sourceReports.map((report) => `${report.source} ${report.status === 'ok' ? `${report.count}` : `failed (${report.error?.kind ?? 'error'})`}`).join(', ')}.
      </p>
      {collection.metadata.sourceReports.some((report) => (report.appliedLocally ?? []).length + (report.notApplied ?? []).length + (report.droppedLocally?.count ?? 0) > 0) && (
        <ul class="source-notes">
          {collection.metadata.sourceReports.flatMap((report) => [
            ...(report.appliedLocally ?? []).map((part) => <li key={`${report.source}-local-${part}`}>{`${report.source}: ${part} applied locally`}</li>),
            ...localDropNotes(report).map((note) => <li key={`${report.source}-dropped`}>{note}</li>),
            ...(report.notApplied ?? []).map((part) => <li key={`${report.source}-not-${part}`}>{`${report.source}: not applied — ${part}`}</li>),
          ])}
        </ul>
      )}
      <CutNotes notes={cutNotes(collection.metadata.cuts, papersTrimmed, collection.storedPapersUnavailable)} />
      {unmarkable.size > 0 && (
        <p id="unmarkable-note" class="hint">
          {unmarkable.size === 1 ? '1 paper (greyed) cannot be kept by this review: it is' : `${unmarkable.size} papers (greyed) cannot be kept by this review: they are`} beyond the
          papers its message carried. You can still mark {unmarkable.size === 1 ? 'it' : 'them'} not relevant, or search again to see {unmarkable.size === 1 ? 'it' : 'them'} in a
          review that can keep {unmarkable.size === 1 ? 'it' : 'them'}.
        </p>
      )}
      <fieldset>
        <legend>Tick the relevant papers (and any that are not relevant)</legend>
        <ul class="papers">
          {collection.papers.map((paper) => {
            const keepable = !unmarkable.has(paper.id);
            return (
              <li key={paper.id} class={keepable ? undefined : 'unmarkable'} data-unmarkable={keepable ? undefined : 'true'}>
                <label class="choice">
                  <input
                    type="checkbox"
                    disabled={!keepable}
                    aria-describedby={keepable ? undefined : 'unmarkable-note'}
                    checked={keepable && marks[paper.id] === 'relevant'}
                    onChange={(event) => setMarks(withMark(marks, paper.id, event.currentTarget.checked ? 'relevant' : null))}
                  />{' '}
                  {paper.title}
                  {paper.year === null ? '' : ` (${paper.year})`} — relevance {paper.relevanceScore.toFixed(2)}
                  {keepable ? '' : ' — cannot be kept by this review'}
                </label>
                <label class="choice not-relevant">
                  <input type="checkbox" checked={marks[paper.id] === 'irrelevant'} onChange={(event) => setMarks(withMark(marks, paper.id, event.currentTarget.checked ? 'irrelevant' : null))} /> not relevant (never show
                  again)
                </label>
              </li>
            );
          })}
        </ul>
      </fieldset>
      <button type="button" disabled={busy} onClick={() => void send({ action: 'approve', revisedData: { markedRelevant: relevant } })}>
        Approve the results
      </button>{' '}
      <button
        type="button"
        class="secondary"
        disabled={busy || relevant.length + irrelevant.length === 0}
        onClick={() => void send({ action: 'edit', revisedData: { markedRelevant: relevant, markedIrrelevant: irrelevant, freeText: note.trim() === '' ? null : note } })}
      >
        Search again, steered by my marks
      </button>
      <label for="review-note">Note for a rejection</label>
      <input id="review-note" class="wide" value={note} onInput={(event) => setNote(event.currentTarget.value)} />
      <button type="button" class="secondary" disabled={busy || note.trim() === ''} onClick={() => void send({ action: 'reject', note })}>
        Reject with this note
      </button>
      <DecisionProblem problem={problem} />
    </section>
  );
}
