import { JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { ClaimSightings, KvResponseCache } from './kv-response-cache.js';

/** JetStream's refusal of a write into a KV bucket at its byte bound (nats-server 2.9: err_code 10077). */
const bucketFull = (): JetStreamApiError => new JetStreamApiError({ code: 503, err_code: 10077, description: 'maximum bytes exceeded' });

describe('KvResponseCache on a nearly full bucket', () => {
  it('reports the bucket full once while small claims still fit and results do not, and writable again only when a result fits', async () => {
    let roomForResults = false;
    let revisions = 0;
    // Only the calls the cache makes; the rest of KV is not used here.
    const kv = {
      put: () => (roomForResults ? Promise.resolve((revisions += 1)) : Promise.reject(bucketFull())),
      create: () => Promise.resolve((revisions += 1)),
      get: () => Promise.resolve(null),
      delete: () => Promise.resolve(),
    } as unknown as KV;
    const log: string[] = [];
    const cache = new KvResponseCache(kv, { onFull: () => log.push('full'), onWritable: () => log.push('writable') });
    const response = { expiresAtMs: 1, result: { works: [], totalAvailable: 0, requests: 1 } };
    for (const key of ['openalex.a', 'openalex.b', 'openalex.c']) {
      const claim = await cache.claim(key, 5_000);
      expect(claim.outcome).toBe('fetch');
      await cache.set(key, response);
      if (claim.outcome === 'fetch') await claim.release();
    }
    expect(log).toEqual(['full']);
    roomForResults = true;
    await cache.set('openalex.d', response);
    await cache.set('openalex.e', response);
    expect(log).toEqual(['full', 'writable']);
  });
});

describe('ClaimSightings', () => {
  it('judges a claim lapsed once this replica has seen the same revision for its life, by its own clock alone', () => {
    let now = 1_000;
    const sightings = new ClaimSightings(() => now, 2);
    expect(sightings.lapsed('claim.a', 7, 500)).toBe(false);
    now += 499;
    expect(sightings.lapsed('claim.a', 7, 500)).toBe(false);
    // Another revision (released and claimed again, or taken over) is a new claim: its life starts now.
    expect(sightings.lapsed('claim.a', 8, 500)).toBe(false);
    now += 499;
    expect(sightings.lapsed('claim.a', 8, 500)).toBe(false);
    now += 1;
    expect(sightings.lapsed('claim.a', 8, 500)).toBe(true);
    // Bounded: the oldest sighting is dropped, and that claim is seen anew.
    sightings.lapsed('claim.b', 1, 500);
    sightings.lapsed('claim.c', 1, 500);
    now += 10_000;
    expect(sightings.lapsed('claim.a', 8, 500)).toBe(false);
    expect(sightings.lapsed('claim.c', 1, 500)).toBe(true);
  });
});
