import { PlatformMetrics } from '@openpaw/platform';
import type { OcrReader, OcrReading } from '@openpaw/providers/ocr';
import { ExternalReadingGate, type ExternalReadQuota, parseExternalReadingPolicy } from './external-reading.js';
import { externalReadingLog, LOCAL_FALLBACKS_METRIC } from './external-reading-metrics.js';

function reader(name: string, local: boolean): OcrReader {
  const reading: OcrReading = { reader: name, local, lines: [], width: 1, height: 1 };
  return { reader: name, local, read: () => Promise.resolve(reading), close: () => Promise.resolve() };
}

/** One call per user and period, then none. */
class OneCallEach implements ExternalReadQuota {
  readonly #used = new Set<string>();
  take(userId: string, period: string): Promise<boolean> {
    const key = `${userId}@${period}`;
    if (this.#used.has(key)) return Promise.resolve(false);
    this.#used.add(key);
    return Promise.resolve(true);
  }
}

describe('openpaw_ocr_local_fallbacks_total', () => {
  it('counts each image read locally by reason and external reader, never an external read, beside the warning', async () => {
    const metrics = new PlatformMetrics('ingestion', { defaultMetrics: false });
    const warnings: string[] = [];
    const log = externalReadingLog({ warn: (_fields, message) => warnings.push(message) }, metrics, 'mathpix');
    const policy = parseExternalReadingPolicy(JSON.stringify({ period: 'day', tiers: { pro: { callsPerPeriod: 1 } } }));
    const gate = new ExternalReadingGate(reader('mathpix', false), reader('pp-ocr', true), policy, new OneCallEach(), log, () => new Date('2026-11-27T12:00:00Z'));
    const image = new Uint8Array([1]);

    const readers = [
      await gate.forTenant({ userId: 'pro-user', subscriptionTier: 'pro' }).read(image), // external: the tier's one call
      await gate.forTenant({ userId: 'pro-user', subscriptionTier: 'pro' }).read(image), // cap reached
      await gate.forTenant({ userId: 'free-user', subscriptionTier: 'free' }).read(image), // not allowed
      await gate.forTenant({ userId: 'free-user', subscriptionTier: 'free' }).read(image), // not allowed
    ].map((reading) => reading.reader);

    expect(readers).toEqual(['mathpix', 'pp-ocr', 'pp-ocr', 'pp-ocr']);
    expect(warnings).toHaveLength(3);
    const values = (await metrics.registry.getSingleMetric(LOCAL_FALLBACKS_METRIC)?.get())?.values.map((v) => ({ labels: v.labels, value: v.value }));
    expect(values).toEqual(
      expect.arrayContaining([
        { labels: { reason: 'cap_reached', external: 'mathpix' }, value: 1 },
        { labels: { reason: 'tenant_not_allowed', external: 'mathpix' }, value: 2 },
      ]),
    );
    expect(values).toHaveLength(2);
  });
});
