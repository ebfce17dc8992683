import { VerifiedTokens } from './verified-tokens.js';

describe('VerifiedTokens', () => {
  const now = 1_800_000_000_000;
  const expiresAt = now / 1000 + 3600;

  it('answers a remembered token until it expires or its verification is older than the maximum age', () => {
    const tokens = new VerifiedTokens<string>(10, 60_000);
    tokens.remember('a.b.c', { value: 'alice', expiresAt }, now);
    expect(tokens.get('a.b.c', now + 59_999)).toBe('alice');
    expect(tokens.get('a.b.c', now + 60_000)).toBeUndefined();
    tokens.remember('d.e.f', { value: 'bob', expiresAt: now / 1000 + 10 }, now);
    expect(tokens.get('d.e.f', now + 9_999)).toBe('bob');
    expect(tokens.get('d.e.f', now + 10_000)).toBeUndefined();
    expect(tokens.get('x.y.z', now)).toBeUndefined();
  });

  it('forgets the oldest token beyond its bound', () => {
    const tokens = new VerifiedTokens<string>(2, 60_000);
    tokens.remember('t1', { value: '1', expiresAt }, now);
    tokens.remember('t2', { value: '2', expiresAt }, now);
    tokens.remember('t3', { value: '3', expiresAt }, now);
    expect([tokens.get('t1', now), tokens.get('t2', now), tokens.get('t3', now)]).toEqual([undefined, '2', '3']);
  });
});
