import { type ArgumentMetadata, BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

/** One reason the input was refused, naming the field (`path`, dot-separated; empty for the whole input). */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** The 400 body of refused input. */
export interface ValidationErrorBody {
  readonly error: 'validation_failed';
  /** Where the input was: path parameters, query string or body. */
  readonly location: 'params' | 'query' | 'body' | 'input';
  readonly issues: readonly ValidationIssue[];
}

export function validationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path: [path, ...issue.keys].filter((p) => p !== '').join(','), message: issue.message };
    }
    return { path, message: issue.message };
  });
}

function locationOf(metadata: ArgumentMetadata): ValidationErrorBody['location'] {
  switch (metadata.type) {
    case 'param':
      return 'params';
    case 'query':
      return 'query';
    case 'body':
      return 'body';
    default:
      return 'input';
  }
}

/**
 * Validates a whole route input (params, query or body) with a zod schema and passes on the
 * parsed value; refuses with 400 `{ error: 'validation_failed', location, issues: [{ path, message }] }`.
 */
@Injectable()
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(readonly schema: S) {}

  transform(value: unknown, metadata: ArgumentMetadata): z.output<S> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    const body: ValidationErrorBody = { error: 'validation_failed', location: locationOf(metadata), issues: validationIssues(result.error) };
    throw new BadRequestException(body);
  }
}
