import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor, PayloadTooLargeException, BadRequestException, HttpException } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Observable } from 'rxjs';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';

/** The multipart field holding a source file. */
export const SOURCE_FILE_FIELD = 'file';

/**
 * Parses a `multipart/form-data` body (one document as `file`, a few text fields) into memory with
 * the gateway's upload limit; other content types pass untouched.
 */
@Injectable()
export class SourceUploadInterceptor implements NestInterceptor {
  private multer: { interceptor: NestInterceptor; maxBytes: number } | undefined;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (this.multer === undefined) {
      const maxBytes = this.config.uploadMaxBytes;
      const Multer = FileInterceptor(SOURCE_FILE_FIELD, { limits: { fileSize: maxBytes, files: 1, fields: 4, fieldSize: 1024, parts: 6 } });
      this.multer = { interceptor: new Multer(), maxBytes };
    }
    try {
      return await this.multer.interceptor.intercept(context, next);
    } catch (error) {
      if (error instanceof PayloadTooLargeException || (error instanceof HttpException && (error.cause as { code?: string } | undefined)?.code === 'LIMIT_FILE_SIZE')) {
        throw new PayloadTooLargeException({ error: 'payload_too_large', message: `the file is larger than the upload limit of ${this.multer.maxBytes} bytes`, field: SOURCE_FILE_FIELD });
      }
      if (error instanceof BadRequestException) {
        throw new BadRequestException({ error: 'malformed_multipart', message: `send one document as multipart field "${SOURCE_FILE_FIELD}"` });
      }
      throw error;
    }
  }
}
