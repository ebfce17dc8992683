import { type ingestionTenant, SUBSCRIPTION_TIERS } from '@openpaw/contracts';
import type { OcrReader, OcrReading, OcrReadOptions } from '@openpaw/providers/ocr';
import { z } from 'zod';

/*
 * Who may have their images read by an external reader (a vision LLM, Mathpix, Google Vision: the
 * image leaves the platform, and each call costs), and how often (issue 25). Nobody by default: a
 * tenant is allowed by its tier or by its user id, with a cap of calls per period; a user entry
 * overrides its tier's. An image of a tenant that is not allowed, or past its cap, is read by the
 * local reader instead (PP-OCRv4), and the log says why; it is never sent out.
 */

export type IngestionTenant = z.infer<typeof ingestionTenant>;

const allowance = z.strictObject({
  /** External reads allowed per period; 0 keeps this tenant's images local. */
  callsPerPeriod: z.int().min(0).max(10_000_000),
});

export const externalReadingPolicySchema = z.strictObject({
  /** The cap's period, in UTC: calendar days or calendar months. */
  period: z.enum(['day', 'month']).default('day'),
  tiers: z.partialRecord(z.enum(SUBSCRIPTION_TIERS), allowance).default({}),
  users: z.record(z.string().min(1).max(200), allowance).default({}),
});
export type ExternalReadingPolicy = z.infer<typeof externalReadingPolicySchema>;

/** Nobody's images leave. */
export const NO_EXTERNAL_READING: ExternalReadingPolicy = { period: 'day', tiers: {}, users: {} };

/** `OPENPAW_INGESTION_EXTERNAL_READING` (JSON), validated; absent or empty is NO_EXTERNAL_READING. Throws naming what is wrong. */
export function parseExternalReadingPolicy(raw: string | undefined): ExternalReadingPolicy {
  if (raw === undefined || raw.trim() === '') return NO_EXTERNAL_READING;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error(`OPENPAW_INGESTION_EXTERNAL_READING is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = externalReadingPolicySchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`OPENPAW_INGESTION_EXTERNAL_READING: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** The tenant's external reads per period: its user entry, else its tier's, else 0 (own properties only). */
export function externalCallsAllowed(policy: ExternalReadingPolicy, tenant: IngestionTenant | undefined): number {
  if (tenant === undefined) return 0;
  const user = Object.hasOwn(policy.users, tenant.userId) ? policy.users[tenant.userId] : undefined;
  return (user ?? policy.tiers[tenant.subscriptionTier])?.callsPerPeriod ?? 0;
}

/** The period a moment falls in, as the counter's key: `2026-11-27` (day) or `2026-11` (month), UTC. */
export function periodOf(policy: Pick<ExternalReadingPolicy, 'period'>, at: Date): string {
  const iso = at.toISOString();
  return policy.period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** Counts external reads per tenant and period. */
export interface ExternalReadQuota {
  /** Takes one call of the tenant's cap in the period: true when one was left (and is now used). */
  take(userId: string, period: string, cap: number): Promise<boolean>;
}

/**
 * The counter in the `ingestion` schema (`external_reads`): one upsert that increments only below the
 * cap, so concurrent replicas never take more than the cap between them. A read that fails after its
 * call was taken still counts (the call may have reached the provider).
 */
export class PgExternalReadQuota implements ExternalReadQuota {
  /** `database`: the service's TypeORM data source (its `query` answers the returned rows). */
  constructor(private readonly database: { query(sql: string, parameters: unknown[]): Promise<unknown> }) {}

  async take(userId: string, period: string, cap: number): Promise<boolean> {
    if (cap <= 0) return false;
    const rows = await this.database.query(
      `insert into ingestion.external_reads as r (user_id, period, calls) values ($1, $2, 1)
       on conflict (user_id, period) do update set calls = r.calls + 1, updated_at = now() where r.calls < $3
       returning calls`,
      [userId, period, cap],
    );
    return Array.isArray(rows) && rows.length === 1;
  }
}

/** Why an image was read locally although an external reader is configured. */
export type LocalReason = 'tenant_not_allowed' | 'cap_reached';

export interface ExternalReadingLog {
  warn(fields: Record<string, unknown>, message: string): void;
  /** Counts each image read locally instead, beside the warning (the service's `openpaw_ocr_local_fallbacks_total`). */
  readonly countLocalRead?: (reason: LocalReason) => void;
}

/**
 * The configured reader behind the tenant's policy. As an OcrReader on its own (the start-up warm-up,
 * a read with no tenant) it reads locally; `forTenant` gives the reader of one submission, which takes
 * a call of the tenant's cap only when an image is actually read.
 */
export class ExternalReadingGate implements OcrReader {
  readonly reader: string;
  readonly local = true;

  constructor(
    private readonly configured: OcrReader,
    private readonly localReader: OcrReader,
    private readonly policy: ExternalReadingPolicy,
    private readonly quota: ExternalReadQuota,
    private readonly log: ExternalReadingLog,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.reader = localReader.reader;
  }

  read(image: Uint8Array, options?: OcrReadOptions): Promise<OcrReading> {
    return this.localReader.read(image, options);
  }

  forTenant(tenant: IngestionTenant | undefined): OcrReader {
    if (this.configured.local) return this.configured;
    return {
      reader: this.configured.reader,
      local: false,
      read: (image, options) => this.readFor(tenant, image, options),
      close: () => Promise.resolve(),
    };
  }

  private async readFor(tenant: IngestionTenant | undefined, image: Uint8Array, options?: OcrReadOptions): Promise<OcrReading> {
    const cap = externalCallsAllowed(this.policy, tenant);
    const reason: LocalReason | undefined =
      cap === 0 || tenant === undefined ? 'tenant_not_allowed' : (await this.quota.take(tenant.userId, periodOf(this.policy, this.now()), cap)) ? undefined : 'cap_reached';
    if (reason === undefined) return this.configured.read(image, options);
    this.log.warn(
      { reason, userId: tenant?.userId ?? null, tier: tenant?.subscriptionTier ?? null, external: this.configured.reader, local: this.localReader.reader, cap, period: this.policy.period },
      reason === 'cap_reached' ? `external reading cap of ${cap} per ${this.policy.period} reached: image read locally` : 'tenant has not allowed external reading: image read locally',
    );
    this.log.countLocalRead?.(reason);
    return this.localReader.read(image, options);
  }

  async close(): Promise<void> {
    await Promise.all([this.configured.close(), this.localReader.close()]);
  }
}
