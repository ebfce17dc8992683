import type { KeyProvider, StoredUserKey, UserKeyStore } from '@openpaw/providers/keys';
import type { DataSource } from 'typeorm';
import { type PreparedSql, preparedSql } from '@openpaw/persistence';

interface Row {
  readonly user_id: string;
  readonly provider: KeyProvider;
  readonly ciphertext: string;
  readonly updated_at: Date;
}

const toRecord = (row: Row): StoredUserKey => ({ userId: row.user_id, provider: row.provider, ciphertext: row.ciphertext, updatedAt: row.updated_at.toISOString() });

/** `UserKeyStore` over the gateway schema's `user_provider_keys` (ciphertext only). A saved key replaces the old one untested (`ProviderKeyTests`). */
export class PgUserKeyStore implements UserKeyStore {
  /** Every research start lists the user's keys: a named statement. */
  private readonly sql: PreparedSql;

  constructor(private readonly dataSource: DataSource) {
    this.sql = preparedSql(dataSource, 'gateway_user_keys');
  }

  async save(record: StoredUserKey): Promise<void> {
    await this.dataSource.query(
      `insert into "gateway"."user_provider_keys" (user_id, provider, ciphertext, updated_at) values ($1, $2, $3, $4)
       on conflict (user_id, provider) do update set ciphertext = excluded.ciphertext, updated_at = excluded.updated_at,
         test_id = null, test_requested_at = null, tested_at = null, test_outcome = null, test_model = null, test_latency_ms = null, test_reason = null`,
      [record.userId, record.provider, record.ciphertext, record.updatedAt],
    );
  }

  async load(userId: string, provider: KeyProvider): Promise<StoredUserKey | undefined> {
    const rows = await this.dataSource.query<Row[]>(`select * from "gateway"."user_provider_keys" where user_id = $1 and provider = $2`, [userId, provider]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async delete(userId: string, provider: KeyProvider): Promise<boolean> {
    const result = await this.dataSource.query<[unknown[], number]>(`delete from "gateway"."user_provider_keys" where user_id = $1 and provider = $2`, [userId, provider]);
    return result[1] > 0;
  }

  async list(userId: string): Promise<StoredUserKey[]> {
    const rows = await this.sql.query<Row>(`select * from "gateway"."user_provider_keys" where user_id = $1 order by provider`, [userId]);
    return rows.map(toRecord);
  }
}
