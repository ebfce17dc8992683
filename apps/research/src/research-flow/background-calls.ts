import type { BackgroundCallLedger } from '@openpaw/providers';
import type { DataSource } from 'typeorm';

/** Where each leg's background call is kept, by the leg's idempotency key (its command id). */
export interface BackgroundCalls {
  for(idempotencyKey: string): BackgroundCallLedger;
}

/** For tests and local runs: kept in memory (a restart forgets them). */
export class InMemoryBackgroundCalls implements BackgroundCalls {
  readonly kept = new Map<string, string>();

  for(idempotencyKey: string): BackgroundCallLedger {
    return {
      recall: () => Promise.resolve(this.kept.get(idempotencyKey)),
      keep: (responseId) => {
        if (!this.kept.has(idempotencyKey)) this.kept.set(idempotencyKey, responseId);
        return Promise.resolve();
      },
    };
  }
}

/**
 * The provider-side ids of legs the provider runs in the background, by idempotency key (the leg's
 * command id), in the `research` schema (`background_calls`). The first id kept for a key stays:
 * two deliveries racing keep one, and both then poll it.
 */
export class PgBackgroundCalls implements BackgroundCalls {
  constructor(private readonly dataSource: DataSource) {}

  /** The ledger of one call. */
  for(idempotencyKey: string): BackgroundCallLedger {
    return {
      recall: async () => {
        const rows = await this.dataSource.query<{ response_id: string }[]>(`select response_id from research.background_calls where idempotency_key = $1`, [idempotencyKey]);
        return rows[0]?.response_id;
      },
      keep: async (responseId) => {
        await this.dataSource.query(`insert into research.background_calls (idempotency_key, response_id) values ($1, $2) on conflict (idempotency_key) do nothing`, [idempotencyKey, responseId]);
      },
    };
  }
}
