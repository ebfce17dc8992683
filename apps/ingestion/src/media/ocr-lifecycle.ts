import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import sharp from 'sharp';
import type { OcrEngine } from '../domain/ocr-pool.js';
import { INGESTION_OCR } from '../ports.js';

/**
 * The OCR pool lives as long as the process: a worker is started before the service takes commands
 * (a missing traineddata file fails the start, not the first upload), and the pool is shut down after
 * the consumers have stopped (Nest runs `onApplicationShutdown` after every `onModuleDestroy`).
 */
@Injectable()
export class OcrLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(INGESTION_OCR) private readonly ocr: OcrEngine) {}

  async onApplicationBootstrap(): Promise<void> {
    const blank = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#ffffff' } }).png().toBuffer();
    await this.ocr.recognise(blank);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ocr.shutdown();
  }
}
