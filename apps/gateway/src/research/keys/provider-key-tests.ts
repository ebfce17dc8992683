import type { KeyedResearchProvider, MessageData, ResearchProviderKeyTested } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';

type Report = MessageData<typeof ResearchProviderKeyTested>;

/** A key's latest test: asked for, and how it went once the research service reported (`outcome` null until then). */
export interface KeyTest {
  readonly testId: string;
  readonly requestedAt: string;
  readonly testedAt: string | null;
  readonly outcome: Report['outcome'] | null;
  readonly model: string | null;
  readonly latencyMs: number | null;
  readonly reason: string | null;
}

/** The test `testId` (asked for at `requestedAt`) as the research service reported it. */
export function reportedTest(requestedAt: string, report: Report): KeyTest {
  return { testId: report.testId, requestedAt, testedAt: report.testedAt, outcome: report.outcome, model: report.model, latencyMs: report.latencyMs, reason: report.reason };
}

/** A stored key as `GET /research/keys` lists it: never the key, its latest test. */
export interface ListedKey {
  readonly provider: KeyedResearchProvider;
  readonly updatedAt: string;
  readonly lastTest: KeyTest | null;
}

interface Row {
  readonly provider: KeyedResearchProvider;
  readonly updated_at: Date;
  readonly test_id: string | null;
  readonly test_requested_at: Date | null;
  readonly tested_at: Date | null;
  readonly test_outcome: Report['outcome'] | null;
  readonly test_model: string | null;
  readonly test_latency_ms: number | null;
  readonly test_reason: string | null;
}

const listed = (row: Row): ListedKey => ({
  provider: row.provider,
  updatedAt: row.updated_at.toISOString(),
  lastTest:
    row.test_id === null || row.test_requested_at === null
      ? null
      : {
          testId: row.test_id,
          requestedAt: row.test_requested_at.toISOString(),
          testedAt: row.tested_at?.toISOString() ?? null,
          outcome: row.test_outcome,
          model: row.test_model,
          latencyMs: row.test_latency_ms,
          reason: row.test_reason,
        },
});

/**
 * The users' tests of their stored keys, on the key's own row (`gateway.user_provider_keys`): a
 * test begun replaces the last one; the research service's report lands only on the test it was
 * for (a key replaced meanwhile starts untested, and an older test's late report is dropped).
 */
export class ProviderKeyTests {
  constructor(private readonly dataSource: DataSource) {}

  /** Records a new test of the user's key of `provider`; its sealed key for the command, or undefined when the user has none. */
  async begin(userId: string, provider: KeyedResearchProvider, testId: string, requestedAt: Date): Promise<string | undefined> {
    // TypeORM's PostgreSQL driver answers an update with [rows returned, rows affected].
    const [rows] = await this.dataSource.query<[{ ciphertext: string }[], number]>(
      `update "gateway"."user_provider_keys"
         set test_id = $3, test_requested_at = $4, tested_at = null, test_outcome = null, test_model = null, test_latency_ms = null, test_reason = null
       where user_id = $1 and provider = $2 returning ciphertext`,
      [userId, provider, testId, requestedAt],
    );
    return rows[0]?.ciphertext;
  }

  /** Records a report on the test it was for; false when that test is no longer the key's latest. */
  async record(report: Report): Promise<boolean> {
    const result = await this.dataSource.query<[unknown[], number]>(
      `update "gateway"."user_provider_keys" set tested_at = $4, test_outcome = $5, test_model = $6, test_latency_ms = $7, test_reason = $8
       where user_id = $1 and provider = $2 and test_id = $3`,
      [report.userId, report.provider, report.testId, report.testedAt, report.outcome, report.model, report.latencyMs, report.reason],
    );
    return result[1] > 0;
  }

  /** The user's keys (never the keys) with their latest tests. */
  async list(userId: string): Promise<ListedKey[]> {
    const rows = await this.dataSource.query<Row[]>(
      `select provider, updated_at, test_id, test_requested_at, tested_at, test_outcome, test_model, test_latency_ms, test_reason
       from "gateway"."user_provider_keys" where user_id = $1 order by provider`,
      [userId],
    );
    return rows.map(listed);
  }
}
