import type { MessageData, ResearchWebhookAttempted } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';

type Attempt = MessageData<typeof ResearchWebhookAttempted>;

/** The latest delivery attempt to a webhook the research service reported. */
export interface LastDelivery {
  readonly eventId: string;
  readonly eventType: string;
  readonly attempt: number;
  readonly attemptedAt: string;
  readonly outcome: Attempt['outcome'];
  readonly reason: string | null;
}

/** A user's research webhook as registered through the gateway (never its secret). */
export interface WebhookRegistration {
  readonly url: string;
  readonly secretSet: boolean;
  /** When the current registration began (a PUT after none); a PUT replacing it keeps this. */
  readonly createdAt: string;
  /** The latest PUT. */
  readonly updatedAt: string;
  /** The latest attempt to deliver an event to this registration (null until the first is reported). */
  readonly lastDelivery: LastDelivery | null;
}

interface Row {
  readonly url: string | null;
  readonly secret_set: boolean;
  readonly created_at: Date | null;
  readonly updated_at: Date;
  readonly last_event_id: string | null;
  readonly last_event_type: string | null;
  readonly last_attempt: number | null;
  readonly last_attempted_at: Date | null;
  readonly last_outcome: Attempt['outcome'] | null;
  readonly last_reason: string | null;
}

const NO_ATTEMPT = 'last_event_id = null, last_event_type = null, last_attempt = null, last_attempted_at = null, last_outcome = null, last_reason = null';

/**
 * The gateway's record of its users' research webhooks (`gateway.research_webhooks`), written by
 * `PUT` / `DELETE /research/webhook` and read by `GET`. It also sequences them: each setting of a
 * user gets a version above the last one (the time in ms, or one more when two land in the same
 * ms), which the `SetResearchWebhook` sent after it carries, so the research service, keeping the
 * larger version, ends on the same setting whatever order the commands arrive in. The research
 * service's reports of delivery attempts land on the registration they were made for.
 */
export class ResearchWebhookRegistrations {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the registration; returns its version. */
  async register(userId: string, url: string, at: Date): Promise<number> {
    const rows = await this.dataSource.query<{ version: string }[]>(
      `insert into "gateway"."research_webhooks" (user_id, url, secret_set, version, created_at, updated_at) values ($1, $2, true, $3, $4, $4)
       on conflict (user_id) do update set url = excluded.url, secret_set = true, version = greatest(excluded.version, research_webhooks.version + 1),
         updated_at = excluded.updated_at, created_at = coalesce(research_webhooks.created_at, excluded.created_at), ${NO_ATTEMPT}
       returning version`,
      [userId, url, at.getTime(), at],
    );
    return Number(rows[0]?.version);
  }

  /** Records the removal; returns its version. */
  async remove(userId: string, at: Date): Promise<number> {
    const rows = await this.dataSource.query<{ version: string }[]>(
      `insert into "gateway"."research_webhooks" (user_id, url, secret_set, version, created_at, updated_at) values ($1, null, false, $2, null, $3)
       on conflict (user_id) do update set url = null, secret_set = false, version = greatest(excluded.version, research_webhooks.version + 1),
         created_at = null, updated_at = excluded.updated_at, ${NO_ATTEMPT}
       returning version`,
      [userId, at.getTime(), at],
    );
    return Number(rows[0]?.version);
  }

  /**
   * Records a reported attempt if it was made for the current registration (not one replaced since)
   * and is not older than the one recorded (attempts at several events run concurrently); true when recorded.
   */
  async recordAttempt(a: Attempt): Promise<boolean> {
    // An UPDATE answers [rows, affected] through TypeORM's PostgreSQL driver.
    const [, affected] = await this.dataSource.query<[unknown[], number]>(
      `update "gateway"."research_webhooks" set last_event_id = $3, last_event_type = $4, last_attempt = $5, last_attempted_at = $6, last_outcome = $7, last_reason = $8
       where user_id = $1 and version = $2 and url is not null and (last_attempted_at is null or last_attempted_at <= $6)`,
      [a.userId, a.webhookVersion, a.eventId, a.eventType, a.attempt, a.attemptedAt, a.outcome, a.reason],
    );
    return affected > 0;
  }

  async find(userId: string): Promise<WebhookRegistration | undefined> {
    const rows = await this.dataSource.query<Row[]>(`select * from "gateway"."research_webhooks" where user_id = $1`, [userId]);
    const row = rows[0];
    if (row?.url === undefined || row.url === null || row.created_at === null) return undefined;
    return { url: row.url, secretSet: row.secret_set, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(), lastDelivery: lastDeliveryOf(row) };
  }
}

function lastDeliveryOf(row: Row): LastDelivery | null {
  if (row.last_event_id === null || row.last_event_type === null || row.last_attempt === null || row.last_attempted_at === null || row.last_outcome === null) return null;
  return { eventId: row.last_event_id, eventType: row.last_event_type, attempt: row.last_attempt, attemptedAt: row.last_attempted_at.toISOString(), outcome: row.last_outcome, reason: row.last_reason };
}
