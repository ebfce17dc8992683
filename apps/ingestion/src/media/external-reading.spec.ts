import type { OcrReader, OcrReading } from '@openpaw/providers/ocr';
import { ingestionSettingsFromEnv } from '../config.js';
import { ExternalReadingGate, type ExternalReadQuota, externalCallsAllowed, NO_EXTERNAL_READING, parseExternalReadingPolicy, periodOf } from './external-reading.js';

/** A reader that records the images it was given and answers one line naming itself. */
class RecordingReader implements OcrReader {
  readonly reads: Uint8Array[] = [];
  constructor(
    readonly reader: string,
    readonly local: boolean,
  ) {}
  read(image: Uint8Array): Promise<OcrReading> {
    this.reads.push(image);
    return Promise.resolve({ reader: this.reader, local: this.local, lines: [{ text: this.reader, confidence: 1, box: { x0: 0, y0: 0, x1: 1, y1: 1 }, chars: [] }], width: 1, height: 1 });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The counter's rule in memory (the PostgreSQL one is the int spec's): increments only below the cap. */
class CountingQuota implements ExternalReadQuota {
  readonly calls = new Map<string, number>();
  take(userId: string, period: string, cap: number): Promise<boolean> {
    const key = `${userId}@${period}`;
    const used = this.calls.get(key) ?? 0;
    if (cap <= 0 || used >= cap) return Promise.resolve(false);
    this.calls.set(key, used + 1);
    return Promise.resolve(true);
  }
}

const policy = parseExternalReadingPolicy(JSON.stringify({ period: 'day', tiers: { pro: { callsPerPeriod: 2 }, enterprise: { callsPerPeriod: 100 } }, users: { 'pro-but-private': { callsPerPeriod: 0 }, 'free-but-allowed': { callsPerPeriod: 1 } } }));

describe('external reading policy', () => {
  it('is nobody by default, a tier or a user by config, the user entry winning', () => {
    expect(parseExternalReadingPolicy(undefined)).toEqual(NO_EXTERNAL_READING);
    expect(externalCallsAllowed(NO_EXTERNAL_READING, { userId: 'u', subscriptionTier: 'enterprise' })).toBe(0);
    expect(externalCallsAllowed(policy, { userId: 'u', subscriptionTier: 'free' })).toBe(0);
    expect(externalCallsAllowed(policy, { userId: 'u', subscriptionTier: 'pro' })).toBe(2);
    expect(externalCallsAllowed(policy, { userId: 'pro-but-private', subscriptionTier: 'pro' })).toBe(0);
    expect(externalCallsAllowed(policy, { userId: 'free-but-allowed', subscriptionTier: 'free' })).toBe(1);
    expect(externalCallsAllowed(policy, { userId: 'constructor', subscriptionTier: 'free' })).toBe(0);
    expect(externalCallsAllowed(policy, undefined)).toBe(0);
  });

  it('refuses a bad configuration at start, naming what is wrong', () => {
    expect(() => parseExternalReadingPolicy('{tiers')).toThrow(/OPENPAW_INGESTION_EXTERNAL_READING is not JSON/);
    expect(() => parseExternalReadingPolicy('{"tiers":{"gold":{"callsPerPeriod":1}}}')).toThrow(/OPENPAW_INGESTION_EXTERNAL_READING: tiers: Unrecognized key: "gold"/);
    expect(() => parseExternalReadingPolicy('{"users":{"u":{"callsPerPeriod":-1}}}')).toThrow(/users.u.callsPerPeriod/);
    expect(() => parseExternalReadingPolicy('{"period":"week"}')).toThrow(/period/);
    expect(() => parseExternalReadingPolicy('{"users":{"u":{"calls":3}}}')).toThrow(/users.u/);
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_EXTERNAL_READING: '{"tiers":{"pro":{"callsPerPeriod":"many"}}}' })).toThrow(/tiers.pro.callsPerPeriod/);
    expect(ingestionSettingsFromEnv({}).externalReading).toEqual(NO_EXTERNAL_READING);
  });

  it('counts per UTC day or month', () => {
    const at = new Date('2026-11-27T23:59:59.999Z');
    expect(periodOf({ period: 'day' }, at)).toBe('2026-11-27');
    expect(periodOf({ period: 'month' }, at)).toBe('2026-11');
  });
});

describe('ExternalReadingGate', () => {
  const image = new Uint8Array([1, 2, 3]);
  const setup = () => {
    const external = new RecordingReader('vision-llm/openai/gpt-4o+local/pp-ocrv4', false);
    const local = new RecordingReader('local/pp-ocrv4', true);
    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const quota = new CountingQuota();
    const gate = new ExternalReadingGate(external, local, policy, quota, { warn: (fields, message) => warnings.push({ fields, message }) }, () => new Date('2026-11-27T12:00:00Z'));
    return { external, local, warnings, quota, gate };
  };

  it('never sends the image of a tenant that has not allowed it out, and says so', async () => {
    const { external, local, warnings, gate } = setup();
    for (const tenant of [undefined, { userId: 'u', subscriptionTier: 'free' as const }, { userId: 'pro-but-private', subscriptionTier: 'pro' as const }]) {
      expect((await gate.forTenant(tenant).read(image)).reader).toBe('local/pp-ocrv4');
    }
    expect(external.reads).toHaveLength(0);
    expect(local.reads).toHaveLength(3);
    expect(warnings.map((w) => w.fields['reason'])).toEqual(['tenant_not_allowed', 'tenant_not_allowed', 'tenant_not_allowed']);
    expect(warnings[1]?.message).toBe('tenant has not allowed external reading: image read locally');
  });

  it('reads externally within the cap, then locally with the reason, per tenant', async () => {
    const { external, local, warnings, quota, gate } = setup();
    const pro = gate.forTenant({ userId: 'u-pro', subscriptionTier: 'pro' });
    const readers = [];
    for (let i = 0; i < 3; i += 1) readers.push((await pro.read(image)).reader);
    expect(readers).toEqual(['vision-llm/openai/gpt-4o+local/pp-ocrv4', 'vision-llm/openai/gpt-4o+local/pp-ocrv4', 'local/pp-ocrv4']);
    expect(warnings).toEqual([
      {
        fields: { reason: 'cap_reached', userId: 'u-pro', tier: 'pro', external: 'vision-llm/openai/gpt-4o+local/pp-ocrv4', local: 'local/pp-ocrv4', cap: 2, period: 'day' },
        message: 'external reading cap of 2 per day reached: image read locally',
      },
    ]);
    // Another pro user has their own cap.
    expect((await gate.forTenant({ userId: 'u-pro-2', subscriptionTier: 'pro' }).read(image)).reader).toBe('vision-llm/openai/gpt-4o+local/pp-ocrv4');
    expect(external.reads).toHaveLength(3);
    expect(local.reads).toHaveLength(1);
    expect(quota.calls.get('u-pro@2026-11-27')).toBe(2);
  });

  it('takes no call for a submission that reads no image, and reads locally on its own (the start-up warm-up)', async () => {
    const { external, quota, gate } = setup();
    gate.forTenant({ userId: 'u-pro', subscriptionTier: 'pro' });
    expect(quota.calls.size).toBe(0);
    expect((await gate.read(image)).reader).toBe('local/pp-ocrv4');
    expect(external.reads).toHaveLength(0);
  });

  it('needs no policy when the configured reader is local', async () => {
    const local = new RecordingReader('local/pp-ocrv4', true);
    const quota = new CountingQuota();
    const gate = new ExternalReadingGate(local, local, NO_EXTERNAL_READING, quota, { warn: () => undefined });
    expect(gate.forTenant(undefined)).toBe(local);
    expect((await gate.forTenant({ userId: 'u', subscriptionTier: 'free' }).read(image)).reader).toBe('local/pp-ocrv4');
    expect(quota.calls.size).toBe(0);
  });
});
