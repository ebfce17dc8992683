import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';
import type { ValidationErrorBody } from './zod-validation.pipe.js';

/** The `Idempotency-Key` header every starting route takes: 1 to 200 characters (trimmed), or none. */
export const idempotencyKeyHeader = z.string().trim().min(1).max(200).optional();

/**
 * The request's `Idempotency-Key` (trimmed), `undefined` without one; a malformed one is the client's
 * 400 naming the header. The same key from the same user is the same run (or job) on every route.
 */
export function idempotencyKeyOf(raw: string | undefined): string | undefined {
  const header = idempotencyKeyHeader.safeParse(raw);
  if (header.success) return header.data;
  const refusal: ValidationErrorBody = { error: 'validation_failed', location: 'input', issues: [{ path: 'Idempotency-Key', message: 'must be 1 to 200 characters' }] };
  throw new BadRequestException(refusal);
}
