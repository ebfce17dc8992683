import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { OcrReader } from '@openpaw/providers/ocr';
import sharp from 'sharp';
import { INGESTION_OCR } from '../ports.js';

/**
 * The OCR reader lives as long as the process: its models are loaded and run once before the service
 * takes commands (a missing model fails the start, not the first upload), and it is closed after the
 * consumers have stopped (Nest runs `onApplicationShutdown` after every `onModuleDestroy`).
 */
@Injectable()
export class OcrLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(INGESTION_OCR) private readonly reader: OcrReader) {}

  async onApplicationBootstrap(): Promise<void> {
    const blank = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#ffffff' } }).png().toBuffer();
    await this.reader.read(blank);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reader.close();
  }
}
