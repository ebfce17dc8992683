import { createEnvelope, EdgeRefuted, type Envelope, VerifyEdge } from '@openpaw/contracts';
import { InFlightAborts, type MessagePublisher, type Reply, replyTo } from '@openpaw/messaging';
import type { MessageLogContext } from '@openpaw/platform';
import type { VisualSearchHandlers } from '../composition.js';
import { VisualSearchCommandsConsumer } from './visual-search-commands.consumer.js';

const RUN = '8a0f7a5e-2b1c-4c1e-9a55-3c3c9d1f8a10';
const commandOfStep = (step: number) =>
  createEnvelope(
    VerifyEdge,
    { sessionId: 's', runId: RUN, step, from: { name: 'Ada Stone' }, to: { name: 'Bea North' }, queries: ['Ada Stone Bea North'], imagesPerQuery: 5, threshold: 80, budget: { searchCalls: 5, recognitionCalls: 25 } },
    { source: '/openpaw/coordinator', correlationId: RUN },
  );
const command = commandOfStep(1);
const refutation = (commandId: string): Reply =>
  replyTo(commandId, EdgeRefuted, { runId: RUN, commandId, step: 1, from: { name: 'Ada Stone' }, to: { name: 'Bea North' }, reason: 'no_evidence', partialEvidence: [], usage: { searchCalls: 1, recognitionCalls: 5, imagesSkipped: 0, cacheHit: false } });

/** A consumer whose VerifyEdge handler waits for `release` or for its signal (as a provider call would). */
function consumerWith(aborts: InFlightAborts<number>) {
  const published: Envelope[] = [];
  const publisher = { publish: () => Promise.reject(new Error('not used')), publishEnvelope: (envelope: Envelope) => (published.push(envelope), Promise.resolve()) } as MessagePublisher;
  const logged: object[] = [];
  const log = { info: (fields: object) => logged.push(fields) } as unknown as MessageLogContext;
  let release: () => void = () => undefined;
  const verifyEdge = {
    execute: ({ commandId, signal }: { commandId: string; signal?: AbortSignal }) =>
      new Promise<Reply>((resolve, reject) => {
        release = () => resolve(refutation(commandId));
        signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
      }),
  };
  const handlers = { verifyEdge } as unknown as VisualSearchHandlers;
  return { consumer: new VisualSearchCommandsConsumer(handlers, publisher, aborts, log), published, logged, release: () => release() };
}

describe('VisualSearchCommandsConsumer', () => {
  it('answers a step whose run goes on', async () => {
    const { consumer, published, release } = consumerWith(new InFlightAborts<number>());
    const outcome = consumer.onVerifyEdge(command);
    release();
    await expect(outcome).resolves.toEqual({ kind: 'ack' });
    expect(published.map((e) => e.type)).toEqual([EdgeRefuted.subject]);
  });

  it('aborts a step whose run ended while it ran, and acknowledges it unanswered', async () => {
    const aborts = new InFlightAborts<number>();
    const { consumer, published, logged } = consumerWith(aborts);
    const outcome = consumer.onVerifyEdge(command);
    expect(aborts.end(RUN, 'CANCELLED: cancelled')).toBe(1);
    await expect(outcome).resolves.toEqual({ kind: 'ack' });
    expect(published).toEqual([]);
    expect(logged).toEqual([expect.objectContaining({ runId: RUN, reason: 'CANCELLED: cancelled' })]);
  });

  it('does not start a step redelivered after its run ended', async () => {
    const aborts = new InFlightAborts<number>();
    aborts.end(RUN, 'FAILED: runtime_budget_exhausted');
    const { consumer, published } = consumerWith(aborts);
    await expect(consumer.onVerifyEdge(command)).resolves.toEqual({ kind: 'ack' });
    expect(published).toEqual([]);
  });

  it('aborts a step superseded by a later step of its run (the saga re-planned), and answers the later one', async () => {
    const aborts = new InFlightAborts<number>();
    const { consumer, published, logged, release } = consumerWith(aborts);
    const stale = consumer.onVerifyEdge(commandOfStep(1));
    const replanned = commandOfStep(2);
    const current = consumer.onVerifyEdge(replanned);
    await expect(stale).resolves.toEqual({ kind: 'ack' });
    expect(aborts.inFlight(RUN)).toBe(1);
    release();
    await expect(current).resolves.toEqual({ kind: 'ack' });
    expect(published.map((e) => (e.data as { commandId: string }).commandId)).toEqual([replanned.id]);
    expect(logged).toEqual(expect.arrayContaining([expect.objectContaining({ runId: RUN, step: 1, reason: 'superseded by step 2' })]));
  });

  it('does not start an earlier step redelivered after a later one, nor let it stop the later one', async () => {
    const aborts = new InFlightAborts<number>();
    const { consumer, published, release } = consumerWith(aborts);
    const current = consumer.onVerifyEdge(commandOfStep(2));
    await expect(consumer.onVerifyEdge(commandOfStep(1))).resolves.toEqual({ kind: 'ack' });
    expect(aborts.inFlight(RUN)).toBe(1);
    release();
    await expect(current).resolves.toEqual({ kind: 'ack' });
    expect(published).toHaveLength(1);
  });

  it('lets a retry of the step in flight (the same step number) run beside it', async () => {
    const aborts = new InFlightAborts<number>();
    const { consumer } = consumerWith(aborts);
    void consumer.onVerifyEdge(command);
    void consumer.onVerifyEdge(command);
    await Promise.resolve();
    expect(aborts.inFlight(RUN)).toBe(2);
    aborts.end(RUN, 'CANCELLED: cancelled');
  });

  it('does not start a later step of a run that ended (its end covers every step)', async () => {
    const aborts = new InFlightAborts<number>();
    aborts.end(RUN, 'CANCELLED: cancelled');
    const { consumer, published } = consumerWith(aborts);
    await expect(consumer.onVerifyEdge(commandOfStep(2))).resolves.toEqual({ kind: 'ack' });
    expect(published).toEqual([]);
  });
});
