import pg from 'pg';
import type { CommandCounts, StoredCopy } from './platform-facts.js';

/** A command (envelope id) stored more than once in OPENPAW_COMMANDS, and what accounts for each extra copy. */
export interface RepeatedCommand {
  readonly subject: string;
  readonly id: string;
  /** The `Nats-Msg-Id` of each stored copy, in stream order. */
  readonly msgIds: readonly string[];
  /** The coordinator's step-log rows that re-sent it (`command_lost_resent`, `command_resent`), as `<step> <resend>`. */
  readonly resends: readonly string[];
  /** Copies under a msgId already stored, within the duplicate window of the first: the server kept one publish twice. */
  readonly keptTwiceByServer: number;
  /**
   * Copies nothing above accounts for: a msgId stored again past the duplicate window (a publisher
   * re-published too late for the server to drop it), or a fresh msgId with no logged re-send.
   */
  readonly unexplained: number;
}

/**
 * The commands stored more than once, each copy accounted for. The coordinator re-sends a step's
 * command (the same envelope, so the same id) when it judges it lost or unanswered: the first lost
 * re-send under the command's own msgId (JetStream drops it while the first is stored), later ones and
 * unanswered re-sends under a fresh msgId, which the stream stores as another copy (libs/saga
 * `applyResend`); the service answers such a copy from its kept reply. A publisher's retry reuses its
 * msgId, so inside the duplicate window only the server can store it twice (ADR 0036: a nats-server
 * 2.9 replica left behind by a partition, later leading without the first copy). Anything else is a
 * duplicate the platform made.
 */
export async function repeatedCommands(counts: Readonly<CommandCounts>, databaseUrl: string): Promise<RepeatedCommand[]> {
  const repeated = Object.entries(counts).flatMap(([subject, c]) => Object.entries(c.repeated).map(([id, copies]) => ({ subject, id, copies })));
  if (repeated.length === 0) return [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ message_id: string; step_name: string; resend: string | null }>(
      `select payload->>'message_id' as message_id, step_name, payload->>'resend' as resend from coordinator.workflow_step_logs
        where step_name in ('command_lost_resent', 'command_resent') and payload->>'message_id' = any($1) order by id`,
      [repeated.map((r) => r.id)],
    );
    return repeated.map(({ subject, id, copies }) => {
      const resends = rows.filter((row) => row.message_id === id).map((row) => ({ step: row.step_name, resend: Number(row.resend) }));
      return { subject, id, msgIds: copies.map((c) => c.msgId), resends: resends.map((r) => `${r.step} ${r.resend}`), ...accountForCopies(copies, resends) };
    });
  } finally {
    await client.end();
  }
}

/**
 * Accounts for the copies of one command: copies under a msgId stored before are the server's inside
 * the window of that msgId's first copy and a late re-publish past it; further msgIds must each match a
 * logged re-send that takes a fresh msgId (a lost re-send after the first, or any unanswered re-send).
 */
export function accountForCopies(
  copies: readonly StoredCopy[],
  resends: readonly { readonly step: string; readonly resend: number }[],
): { keptTwiceByServer: number; unexplained: number } {
  const firstStored = new Map<string, number>();
  let keptTwiceByServer = 0;
  let lateRepublishes = 0;
  for (const copy of copies) {
    const first = firstStored.get(copy.msgId);
    if (first === undefined) firstStored.set(copy.msgId, copy.storedAt);
    else if (copy.storedAt - first <= copy.duplicateWindowMs) keptTwiceByServer += 1;
    else lateRepublishes += 1;
  }
  const freshIdResends = resends.filter((r) => r.step === 'command_resent' || (r.step === 'command_lost_resent' && r.resend > 1)).length;
  return { keptTwiceByServer, unexplained: lateRepublishes + Math.max(0, firstStored.size - 1 - freshIdResends) };
}
