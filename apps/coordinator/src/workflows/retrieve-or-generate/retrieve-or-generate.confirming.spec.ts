import { InputRefused, MediaNormalized, MediaRejected, NormalizeMedia, READING_DECISION_INPUT, retrieveOrGenerateView, SearchSolutions } from '@openpaw/contracts';
import type { JsonObject } from '@openpaw/saga';
import type { SagaDriver } from '../testing/saga-driver.js';
import { READING_CONFIRMATION_TIMER } from './states/awaiting-reading-confirmation.js';
import { dataAt, definition, ingesting, retrieving, SIG, START, viewOf } from './testing/given.js';

/** An uploaded image, as the gateway sends it, opted in to read → confirm → solve or not. */
const IMAGE = { kind: 'upload', blobKey: 'uploads/u/abc', contentType: 'image/png', byteLength: 1200 };
const imageRun = (confirmReading: boolean): SagaDriver => ingesting(definition, { ...START, submission: IMAGE, ...(confirmReading ? { confirmReading } : {}) });
const READING = { text: 'Solve for y: 5y - 4 = 2y + 11', doubts: ['read unsure: "5" 0.61'] };
const DETAIL = 'the maths in the image cannot be read reliably (read unsure: "5" 0.61); please send a sharper photo, crop to the problem, or type it';
const uncertain = (d: SagaDriver) => d.reply(NormalizeMedia, MediaRejected, { reason: 'unreadable', detail: DETAIL, reading: READING });
const decide = (d: SagaDriver, payload: JsonObject) => d.when({ kind: 'human', userId: d.userId, inputType: READING_DECISION_INPUT, payload });

describe('retrieve_or_generate: read → confirm → solve (issue 25)', () => {
  it('given no opt-in, when the reading is uncertain, then the run fails unreadable naming what could not be read, and its view shows the reading', () => {
    const d = imageRun(false);
    const step = uncertain(d);
    expect(step.state).toBe('FAILED');
    expect(step.applied.logs).toContainEqual(expect.objectContaining({ stepName: 'error_recorded', payload: expect.objectContaining({ error_code: 'unreadable', detail: DETAIL }) }));
    const view = retrieveOrGenerateView.parse(viewOf(d));
    expect(view).toMatchObject({ status: 'failed', error_code: 'unreadable', reading: READING });
  });

  describe('given an opt-in', () => {
    it('when the reading is uncertain, then the run waits in AWAITING_READING_CONFIRMATION with the reading in its view, its deadline paused', () => {
      const d = imageRun(true);
      const step = uncertain(d);
      expect(step.state).toBe('AWAITING_READING_CONFIRMATION');
      expect(dataAt(d, 'confirming').reading).toEqual(READING);
      expect(retrieveOrGenerateView.parse(viewOf(d))).toMatchObject({ status: 'running', state: 'AWAITING_READING_CONFIRMATION', reading: READING });
      expect(d.pendingTimers()).toEqual([READING_CONFIRMATION_TIMER]);
    });

    it('when the reading is confirmed, then it is ingested as text, with the deadline set afresh, and the run goes on to retrieval', () => {
      const d = imageRun(true);
      uncertain(d);
      const doubted = d.commandId(NormalizeMedia);
      const step = decide(d, { confirm: true });
      expect(step.state).toBe('INGESTING');
      expect(step.steps()).toEqual(['reading_confirmed']);
      expect(step.sent(NormalizeMedia)).toEqual([{ runId: d.runId, tenant: { userId: d.userId, subscriptionTier: 'free' }, submission: { kind: 'text', text: READING.text } }]);
      // The next try of the step, with an id of its own: the doubted try's id again would be dropped by
      // JetStream's duplicate window and answered from ingestion's kept reply (the run sat ~30 s for its resend).
      expect(d.commandId(NormalizeMedia)).not.toBe(doubted);
      expect(d.pendingTimers()).toEqual(expect.arrayContaining(['deadline', 'resend:ingest:2']));
      expect(d.pendingTimers()).not.toContain(READING_CONFIRMATION_TIMER);
      const normalized = d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      expect(normalized.state).toBe('RETRIEVING');
      expect(normalized.sent(SearchSolutions)).toHaveLength(1);
      expect(retrieveOrGenerateView.parse(viewOf(d)).reading).toEqual({ ...READING, answer: 'confirmed', solved_text: READING.text });
    });

    it('when the reading is corrected, then the corrected text is what is ingested', () => {
      const d = imageRun(true);
      uncertain(d);
      const step = decide(d, { text: '  Solve for y: 3y - 4 = 2y + 11 ' });
      expect(step.steps()).toEqual(['reading_corrected']);
      expect(step.sent(NormalizeMedia)).toEqual([{ runId: d.runId, tenant: { userId: d.userId, subscriptionTier: 'free' }, submission: { kind: 'text', text: 'Solve for y: 3y - 4 = 2y + 11' } }]);
    });

    it.each([
      ['an empty correction', { text: '  ' }, 'the corrected text is empty'],
      ['a correction too long', { text: 'x'.repeat(20_001) }, 'longer than 20000 characters'],
      ['a correction holding NUL', { text: '2x\u0000 = 4' }, 'NUL'],
      ['neither confirm nor text', { confirm: false }, 'invalid reading decision'],
    ])('when sent %s, then the decision is refused naming it and the run keeps waiting', (_, payload, named) => {
      const d = imageRun(true);
      uncertain(d);
      const step = decide(d, payload);
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ detail: expect.stringContaining(named) })]);
      expect(d.s.run.state).toBe('AWAITING_READING_CONFIRMATION');
    });

    it('when nobody answers within the wait, then the run fails reading_not_confirmed', () => {
      const d = imageRun(true);
      uncertain(d);
      const step = d.fire(READING_CONFIRMATION_TIMER);
      expect(step.state).toBe('FAILED');
      expect(retrieveOrGenerateView.parse(viewOf(d))).toMatchObject({ error_code: 'reading_not_confirmed', reading: READING });
    });

    it('when cancelled while waiting, then the run is CANCELLED', () => {
      const d = imageRun(true);
      uncertain(d);
      expect(d.cancel().state).toBe('CANCELLED');
    });

    it('when the corrected text is rejected too, then the run fails rather than asking again', () => {
      const d = imageRun(true);
      uncertain(d);
      decide(d, { text: 'Solve 2x = 4' });
      const step = uncertain(d);
      expect(step.state).toBe('FAILED');
    });
  });

  it('given a run not waiting for a reading, when a reading decision comes, then it is refused as not awaited', () => {
    const d = retrieving();
    const step = decide(d, { confirm: true });
    expect(step.outcome).toBe('refused');
    expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ detail: 'no reading awaits confirmation: the run is RETRIEVING' })]);
  });

  it('given an opt-in, when a reading is rejected for another reason (no reading), then the run fails as before', () => {
    const d = imageRun(true);
    expect(d.reply(NormalizeMedia, MediaRejected, { reason: 'unreadable', detail: 'no text was found in the image' }).state).toBe('FAILED');
  });
});
