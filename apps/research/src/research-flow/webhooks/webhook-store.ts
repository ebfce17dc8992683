import type { DataSource } from 'typeorm';

/** A user's webhook as the research service keeps it (the secret stays sealed until a delivery). */
export interface StoredWebhook {
  readonly url: string;
  readonly sealedSecret: string;
  /** When the user registered it (epoch ms): events from before are not theirs to receive. */
  readonly registeredAt: number;
}

/** A registration or removal (`url: null`) with its version: the latest version wins. */
export interface WebhookSetting {
  readonly userId: string;
  readonly url: string | null;
  readonly sealedSecret: string | null;
  readonly version: number;
}

export interface WebhookStore {
  /** Applies the setting unless a newer (or the same) version is kept; true when it changed something. */
  set(setting: WebhookSetting): Promise<boolean>;
  find(userId: string): Promise<StoredWebhook | undefined>;
}

/** `WebhookStore` over PostgreSQL (schema `research`, table `research_webhooks`; a removal is kept as a row without url). */
export class PgWebhookStore implements WebhookStore {
  constructor(private readonly dataSource: DataSource) {}

  async set(s: WebhookSetting): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `insert into research_webhooks (user_id, url, sealed_secret, version) values ($1, $2, $3, $4)
       on conflict (user_id) do update set url = excluded.url, sealed_secret = excluded.sealed_secret, version = excluded.version, updated_at = now()
       where research_webhooks.version < excluded.version
       returning 1`,
      [s.userId, s.url, s.sealedSecret, s.version],
    );
    return rows.length > 0;
  }

  async find(userId: string): Promise<StoredWebhook | undefined> {
    const rows = await this.dataSource.query<{ url: string | null; sealed_secret: string | null; version: string }[]>(
      `select url, sealed_secret, version from research_webhooks where user_id = $1`,
      [userId],
    );
    const row = rows[0];
    return row?.url === undefined || row.url === null || row.sealed_secret === null ? undefined : { url: row.url, sealedSecret: row.sealed_secret, registeredAt: Number(row.version) };
  }
}

/** In memory, for unit specs. */
export class InMemoryWebhookStore implements WebhookStore {
  readonly settings = new Map<string, WebhookSetting>();

  set(s: WebhookSetting): Promise<boolean> {
    const kept = this.settings.get(s.userId);
    if (kept !== undefined && kept.version >= s.version) return Promise.resolve(false);
    this.settings.set(s.userId, s);
    return Promise.resolve(true);
  }

  find(userId: string): Promise<StoredWebhook | undefined> {
    const s = this.settings.get(userId);
    return Promise.resolve(s?.url === undefined || s.url === null || s.sealedSecret === null ? undefined : { url: s.url, sealedSecret: s.sealedSecret, registeredAt: s.version });
  }
}
