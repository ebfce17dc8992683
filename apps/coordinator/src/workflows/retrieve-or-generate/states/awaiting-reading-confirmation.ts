import { type MediaRejected, type MessageData, readingDecisionInput, type UncertainReading } from '@openpaw/contracts';
import { type Effect, firstTry, type HumanInput, nextTry, RUN_DEADLINE_TIMER } from '@openpaw/saga';
import { type DataAt, factsOf } from '../retrieve-or-generate.data.js';
import { leaving, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/** The timer bounding the wait for a reading's confirmation. */
export const READING_CONFIRMATION_TIMER = 'reading_confirmation';
/** How long a run waits for its owner to confirm or correct a reading before it fails (`reading_not_confirmed`). */
export const READING_CONFIRMATION_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a rejection is an uncertain reading this run's owner asked to confirm (`confirmReading`):
 * an image whose text was read but not trusted, not yet answered (a corrected text refused as text fails).
 */
type UncertainRejection = MessageData<typeof MediaRejected> & { readonly reading: UncertainReading };

export function awaitsConfirmation(data: DataAt<'ingesting'>, e: MessageData<typeof MediaRejected>): e is UncertainRejection {
  return e.reason === 'unreadable' && e.reading !== undefined && data.request.confirmReading === true && data.reading?.answer === undefined;
}

/**
 * INGESTING → AWAITING_READING_CONFIRMATION: the reading and its doubts wait for the run's owner. The
 * run's deadline bounds machine work, not a person: it is cleared here and set afresh on the answer.
 */
export function awaitReadingConfirmation(run: Run, data: DataAt<'ingesting'>, e: UncertainRejection): RogDecision {
  const reading = { text: e.reading.text, doubts: e.reading.doubts };
  const confirming: DataAt<'confirming'> = { ...factsOf(data), reading, startedAt: data.startedAt, stage: 'confirming', ingestTries: data.step.tries };
  return {
    outcome: 'transition',
    to: 'AWAITING_READING_CONFIRMATION',
    data: confirming,
    step: 'reading_uncertain',
    logs: [{ step: 'reading_awaits_confirmation', payload: { detail: e.detail, doubts: reading.doubts } }],
    effects: [
      ...leaving(data),
      { type: 'clearTimer', name: RUN_DEADLINE_TIMER },
      { type: 'setTimer', name: READING_CONFIRMATION_TIMER, afterMs: READING_CONFIRMATION_WAIT_MS },
    ],
  };
}

/** AWAITING_READING_CONFIRMATION → INGESTING: the reading confirmed or corrected is ingested as a text problem. */
export function readingDecided(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'confirming'>, human: HumanInput): RogDecision {
  const parsed = readingDecisionInput.safeParse(human.payload);
  if (!parsed.success) return { outcome: 'refuse', reason: `invalid reading decision: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` };
  const answer = 'text' in parsed.data ? { kind: 'corrected' as const, text: parsed.data.text } : { kind: 'confirmed' as const, text: data.reading.text };
  // The next try of the ingest step: a command id never sent before (see `ingestTries`).
  const step = nextTry({ ...firstTry('ingest'), tries: data.ingestTries ?? 1 });
  const ingesting: DataAt<'ingesting'> = { ...factsOf(data), reading: { ...data.reading, answer }, startedAt: data.startedAt, stage: 'ingesting', step };
  const entered = outcomes.enterStep(run, data, 'INGESTING', ingesting, `reading_${answer.kind}`);
  const timers: Effect[] = [
    { type: 'clearTimer', name: READING_CONFIRMATION_TIMER },
    { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: data.policy.run_deadline_ms },
  ];
  return entered.outcome === 'transition' ? { ...entered, effects: [...(entered.effects ?? []), ...timers] } : entered;
}

/** AWAITING_READING_CONFIRMATION → FAILED: nobody answered within the wait. */
export function readingNotConfirmed(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'confirming'>): RogDecision {
  return outcomes.fail(run, data, 'reading_not_confirmed', `the reading was neither confirmed nor corrected within ${READING_CONFIRMATION_WAIT_MS} ms`, 'reading_not_confirmed');
}
