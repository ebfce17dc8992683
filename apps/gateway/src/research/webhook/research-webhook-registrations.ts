import type { DataSource } from 'typeorm';

/** A user's research webhook as registered through the gateway (never its secret). */
export interface WebhookRegistration {
  readonly url: string;
  readonly secretSet: boolean;
  /** When the current registration began (a PUT after none); a PUT replacing it keeps this. */
  readonly createdAt: string;
  /** The latest PUT. */
  readonly updatedAt: string;
}

interface Row {
  readonly url: string | null;
  readonly secret_set: boolean;
  readonly created_at: Date | null;
  readonly updated_at: Date;
}

/**
 * The gateway's record of its users' research webhooks (`gateway.research_webhooks`), written by
 * `PUT` / `DELETE /research/webhook` and read by `GET`. It also sequences them: each setting of a
 * user gets a version above the last one (the time in ms, or one more when two land in the same
 * ms), which the `SetResearchWebhook` sent after it carries, so the research service, keeping the
 * larger version, ends on the same setting whatever order the commands arrive in.
 */
export class ResearchWebhookRegistrations {
  constructor(private readonly dataSource: DataSource) {}

  /** Records the registration; returns its version. */
  async register(userId: string, url: string, at: Date): Promise<number> {
    const rows = await this.dataSource.query<{ version: string }[]>(
      `insert into "gateway"."research_webhooks" (user_id, url, secret_set, version, created_at, updated_at) values ($1, $2, true, $3, $4, $4)
       on conflict (user_id) do update set url = excluded.url, secret_set = true, version = greatest(excluded.version, research_webhooks.version + 1),
         updated_at = excluded.updated_at, created_at = coalesce(research_webhooks.created_at, excluded.created_at)
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
         created_at = null, updated_at = excluded.updated_at
       returning version`,
      [userId, at.getTime(), at],
    );
    return Number(rows[0]?.version);
  }

  async find(userId: string): Promise<WebhookRegistration | undefined> {
    const rows = await this.dataSource.query<Row[]>(`select url, secret_set, created_at, updated_at from "gateway"."research_webhooks" where user_id = $1`, [userId]);
    const row = rows[0];
    if (row?.url === undefined || row.url === null || row.created_at === null) return undefined;
    return { url: row.url, secretSet: row.secret_set, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
  }
}
