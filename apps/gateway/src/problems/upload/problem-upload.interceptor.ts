import {
  BadRequestException,
  type CallHandler,
  type ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  type NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Observable } from 'rxjs';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import type { ValidationErrorBody } from '../../http/zod-validation.pipe.js';
import { UPLOAD_FIELD } from '../problems.schemas.js';
import { formatBytes } from './image-upload.js';

interface MulterCause {
  readonly code?: string;
  readonly field?: string;
  readonly message?: string;
}

function causeOf(error: HttpException): MulterCause {
  const cause = error.cause;
  return typeof cause === 'object' && cause !== null ? cause : {};
}

/** Maps multer's refusals to the gateway's error bodies, naming the field and the limit. */
export function uploadRefusal(error: unknown, maxBytes: number): unknown {
  if (!(error instanceof HttpException)) return error;
  const cause = causeOf(error);
  if (error instanceof PayloadTooLargeException || cause.code === 'LIMIT_FILE_SIZE') {
    return new PayloadTooLargeException({
      error: 'payload_too_large',
      message: `the file is larger than the upload limit of ${formatBytes(maxBytes)}`,
      field: cause.field ?? UPLOAD_FIELD,
      limit_bytes: maxBytes,
    });
  }
  if (error instanceof BadRequestException && cause.code !== undefined) {
    const field = cause.field ?? '';
    const message =
      cause.code === 'LIMIT_UNEXPECTED_FILE'
        ? `unexpected file field; send one image as "${UPLOAD_FIELD}"`
        : cause.code === 'LIMIT_FILE_COUNT'
          ? `send one file, as "${UPLOAD_FIELD}"`
          : (cause.message ?? 'invalid multipart field');
    const body: ValidationErrorBody = { error: 'validation_failed', location: 'body', issues: [{ path: field, message }] };
    return new BadRequestException(body);
  }
  if (error instanceof BadRequestException) {
    return new BadRequestException({ error: 'malformed_multipart', message: cause.message ?? 'the multipart body cannot be parsed' });
  }
  return error;
}

/**
 * Parses a `multipart/form-data` body (one image as `file`, small text fields) into memory with a
 * size limit; other content types pass untouched. The bytes go to blob storage, never into messages.
 */
@Injectable()
export class ProblemUploadInterceptor implements NestInterceptor {
  private readonly multer: NestInterceptor;
  private readonly maxBytes: number;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.maxBytes = config.uploadMaxBytes;
    const Multer = FileInterceptor(UPLOAD_FIELD, {
      limits: { fileSize: config.uploadMaxBytes, files: 1, fields: 8, fieldSize: 1024, parts: 10 },
    });
    this.multer = new Multer();
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    try {
      return await this.multer.intercept(context, next);
    } catch (error) {
      throw uploadRefusal(error, this.maxBytes);
    }
  }
}
