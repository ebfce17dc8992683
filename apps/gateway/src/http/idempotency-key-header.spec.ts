import { BadRequestException } from '@nestjs/common';
import { idempotencyKeyOf } from './idempotency-key-header.js';

describe('the Idempotency-Key header', () => {
  it('is the trimmed key, or none when the header is absent', () => {
    expect(idempotencyKeyOf('  draft-1 ')).toBe('draft-1');
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf('k'.repeat(200))).toBe('k'.repeat(200));
  });

  it.each([['blank', '   '], ['empty', ''], ['too long', 'k'.repeat(201)]])('a %s key is a 400 naming the header', (_label, raw) => {
    let refusal: unknown;
    try {
      idempotencyKeyOf(raw);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(BadRequestException);
    expect((refusal as BadRequestException).getResponse()).toMatchObject({ error: 'validation_failed', issues: [{ path: 'Idempotency-Key' }] });
  });
});
