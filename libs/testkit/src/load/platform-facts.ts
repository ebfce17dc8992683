import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { whenJetStreamAnswers } from '@openpaw/messaging';
import pg from 'pg';

/** What the platform's own records say after a load run (PostgreSQL and the commands stream). */
export interface PlatformFacts {
  /** Time spent in each retrieve_or_generate state (ms), per run, from the step log. */
  readonly stateTimesMs: Readonly<Record<string, readonly number[]>>;
  /** Per command subject: messages stored in the stream and distinct commands (envelope ids). */
  readonly commands: Readonly<CommandCounts>;
  /** Step-log counts of the flow-control decisions. */
  readonly flowControlLogs: Readonly<Record<string, number>>;
  /** The same solution (problem, type, content) registered more than once. */
  readonly duplicateAssetVersions: number;
  /** Asset versions made by runs that did not succeed. */
  readonly orphanedAssetVersions: number;
  /** Solution versions with more than one video. */
  readonly videosRenderedTwice: number;
  readonly videoRuns: Readonly<Record<string, number>>;
  /**
   * The step log of the slowest retrieve_or_generate run and of its child runs, oldest first, as
   * `+<ms since the run began> <type> <state> <step>`: where a long time to result went.
   */
  readonly slowestRunTimeline: readonly string[];
}

export async function videoRunsPending(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from coordinator.workflow_runs where type = 'video_workflow' and state not in ('SUCCEEDED', 'FAILED', 'CANCELLED')`,
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export async function collectPlatformFacts(databaseUrl: string, natsUrl: string): Promise<PlatformFacts> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const transitions = await client.query<{ run: string; state: string; at: Date }>(
      `select workflow_run_id as run, state_after as state, occurred_at as at from coordinator.workflow_step_logs
       where workflow_type = 'retrieve_or_generate' and state_before is distinct from state_after order by workflow_run_id, id`,
    );
    const stateTimesMs: Record<string, number[]> = {};
    for (let i = 0; i + 1 < transitions.rows.length; i += 1) {
      const row = transitions.rows[i];
      const next = transitions.rows[i + 1];
      if (row === undefined || next === undefined || row.run !== next.run) continue;
      (stateTimesMs[row.state] ??= []).push(next.at.getTime() - row.at.getTime());
    }
    const logs = await client.query<{ step: string; n: string }>(
      `select step_name as step, count(*) as n from coordinator.workflow_step_logs
       where step_name in ('command_queued', 'command_picked_up', 'command_lost_resent', 'command_resent', 'retry_scheduled', 'deadline_exceeded') group by 1`,
    );
    const duplicates = await client.query<{ n: string }>(
      `select count(*) as n from (select 1 from assets.asset_versions group by problem_id, asset_type, content_sha256 having count(*) > 1) d`,
    );
    const orphaned = await client.query<{ n: string }>(
      `select count(*) as n from assets.asset_versions v
       where v.asset_type = 'solution_html'
         and not exists (select 1 from coordinator.workflow_runs r where r.id = v.source_run_id and r.state = 'SUCCEEDED')`,
    );
    const videosTwice = await client.query<{ n: string }>(
      `select count(*) as n from (select 1 from assets.asset_versions where asset_type = 'video' group by parent_asset_version_id having count(*) > 1) d`,
    );
    const videoRuns = await client.query<{ state: string; n: string }>(`select state, count(*) as n from coordinator.workflow_runs where type = 'video_workflow' group by 1`);
    return {
      stateTimesMs,
      slowestRunTimeline: await slowestRunTimeline(client),
      commands: await commandCounts(natsUrl),
      flowControlLogs: Object.fromEntries(logs.rows.map((r) => [r.step, Number(r.n)])),
      duplicateAssetVersions: Number(duplicates.rows[0]?.n ?? 0),
      orphanedAssetVersions: Number(orphaned.rows[0]?.n ?? 0),
      videosRenderedTwice: Number(videosTwice.rows[0]?.n ?? 0),
      videoRuns: Object.fromEntries(videoRuns.rows.map((r) => [r.state, Number(r.n)])),
    };
  } finally {
    await client.end();
  }
}

async function slowestRunTimeline(client: pg.Client): Promise<string[]> {
  const slowest = await client.query<{ id: string }>(
    `select id from coordinator.workflow_runs where type = 'retrieve_or_generate' and state = 'SUCCEEDED'
     order by updated_at - created_at desc limit 1`,
  );
  const runId = slowest.rows[0]?.id;
  if (runId === undefined) return [];
  const steps = await client.query<{ type: string; state: string; step: string; at: Date }>(
    `select l.workflow_type as type, l.state_after as state, l.step_name as step, l.occurred_at as at
     from coordinator.workflow_step_logs l
     where l.workflow_run_id = $1 or l.workflow_run_id in (select id from coordinator.workflow_runs where parent_run_id = $1)
     order by l.occurred_at, l.id`,
    [runId],
  );
  const begun = steps.rows[0]?.at.getTime() ?? 0;
  return [`run ${runId}`, ...steps.rows.map((r) => `+${r.at.getTime() - begun} ms ${r.type} ${r.state} ${r.step}`)];
}

/** One stored copy of a command: its `Nats-Msg-Id`, when the stream stored it (ms), and the stream's duplicate window then (ms). */
export interface StoredCopy {
  readonly msgId: string;
  readonly storedAt: number;
  readonly duplicateWindowMs: number;
}

/** Per command subject: messages stored, distinct envelope ids, and the copies of each envelope id stored more than once. */
export type CommandCounts = Record<string, { stored: number; distinct: number; repeated: Record<string, StoredCopy[]> }>;

/** Reads every stored command once (an ordered consumer): stored copies vs distinct envelope ids, per subject. */
export async function commandCounts(natsUrl: string): Promise<CommandCounts> {
  const nc = await connect({ servers: natsUrl });
  try {
    const js = jetstream(nc);
    // Right after a node is lost the cluster may still be electing its leaders: ask until JetStream answers (bounded).
    const answered = { signal: AbortSignal.timeout(60_000), onRetry: () => undefined };
    const consumer = await whenJetStreamAnswers('an ordered consumer of OPENPAW_COMMANDS', () => js.consumers.get('OPENPAW_COMMANDS'), answered);
    const info = await whenJetStreamAnswers('its info', () => consumer.info(true), answered);
    const duplicateWindowMs = (await whenJetStreamAnswers('the stream info', async () => (await jetstreamManager(nc)).streams.info('OPENPAW_COMMANDS'), answered)).config.duplicate_window / 1e6;
    const total = info.num_pending;
    const counts: Record<string, { stored: number; copiesOf: Map<string, StoredCopy[]> }> = {};
    if (total > 0) {
      const messages = await consumer.fetch({ max_messages: total, expires: 10_000 });
      let seen = 0;
      for await (const msg of messages) {
        const entry = (counts[msg.subject] ??= { stored: 0, copiesOf: new Map() });
        entry.stored += 1;
        let id: string;
        try {
          id = String(msg.json<{ id?: unknown }>().id);
        } catch {
          id = `unparsable:${msg.seq}`;
        }
        const copies = entry.copiesOf.get(id) ?? [];
        copies.push({ msgId: msg.headers?.get('Nats-Msg-Id') ?? '', storedAt: msg.info.timestampNanos / 1e6, duplicateWindowMs });
        entry.copiesOf.set(id, copies);
        seen += 1;
        if (seen >= total) break;
      }
    }
    return Object.fromEntries(
      Object.entries(counts).map(([subject, c]) => [
        subject,
        { stored: c.stored, distinct: c.copiesOf.size, repeated: Object.fromEntries([...c.copiesOf].filter(([, copies]) => copies.length > 1)) },
      ]),
    );
  } finally {
    await nc.close();
  }
}
