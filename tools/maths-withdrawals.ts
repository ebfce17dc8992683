import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { deterministicUuid, parseEnvelope, ProblemWithdrawn, WithdrawProblem } from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import type { DocumentMaths, IndexedProblem, WithdrawalOutcome } from '../apps/retrieval/src/public-api.js';

/** The sweep's `source` on the commands it sends (it runs as the retrieval service's NATS user). */
export const MATHS_REINDEX_SOURCE = '/openpaw/retrieval/maths-reindex';

interface Pending {
  readonly resolve: (outcome: WithdrawalOutcome) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Sends the sweep's withdrawals to the retrieval service (WithdrawProblem) and waits for each answer
 * (ProblemWithdrawn, which every replica hears too): the catalogue, the vector store and every replica's
 * memory are the service's, so the sweep never writes them itself. A command's id derives from the row
 * and the key it was judged by, so one sent again after a crash is the same message (JetStream drops the
 * duplicate and the first one's answer is awaited).
 */
export class MathsWithdrawals {
  private readonly pending = new Map<string, Pending>();
  private readonly subscription: Subscription;

  private constructor(
    nc: NatsConnection,
    private readonly publisher: JetStreamPublisher,
    private readonly runId: string,
    private readonly timeoutMs: number,
  ) {
    this.subscription = nc.subscribe(ProblemWithdrawn.subject, {
      callback: (error, message) => {
        if (error !== null) return;
        const parsed = parseEnvelope(ProblemWithdrawn, message.data);
        if (!parsed.ok) return;
        const waiting = this.pending.get(parsed.envelope.data.commandId);
        if (waiting === undefined) return;
        this.pending.delete(parsed.envelope.data.commandId);
        clearTimeout(waiting.timer);
        waiting.resolve(parsed.envelope.data.outcome);
      },
    });
  }

  /** Subscribed (flushed) before the first command goes, so no answer is missed. */
  static async open(nc: NatsConnection, runId: string, timeoutMs = 30_000): Promise<MathsWithdrawals> {
    const withdrawals = new MathsWithdrawals(nc, new JetStreamPublisher(jetstream(nc)), runId, timeoutMs);
    await nc.flush();
    return withdrawals;
  }

  /** Withdraws one row and resolves with retrieval's outcome; rejects when no answer comes in time (run again to resume). */
  async withdraw(problem: IndexedProblem & { readonly maths: DocumentMaths }, reason: string): Promise<WithdrawalOutcome> {
    const id = deterministicUuid('maths-reading-sweep', problem.assetVersionId, problem.maths.hash, problem.maths.version ?? '');
    const answered = new Promise<WithdrawalOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no ProblemWithdrawn for ${problem.assetVersionId} within ${this.timeoutMs} ms (is the retrieval service running?)`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
    const expected = { textSha256: problem.textSha256, mathsHash: problem.maths.hash, ...(problem.maths.version === undefined ? {} : { mathsVersion: problem.maths.version }) };
    try {
      await this.publisher.publish(WithdrawProblem, { runId: this.runId, assetVersionId: problem.assetVersionId, expected, reason }, { id, source: MATHS_REINDEX_SOURCE, correlationId: this.runId, subject: this.runId });
    } catch (error) {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (waiting !== undefined) clearTimeout(waiting.timer);
      throw error;
    }
    return answered;
  }

  close(): void {
    this.subscription.unsubscribe();
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error(`closed before ProblemWithdrawn for command ${id}`));
    }
    this.pending.clear();
  }
}
