import { type OcrReader, PpOcrReader } from '@openpaw/providers/ocr';

/** The readers ingestion can be configured with (`OPENPAW_INGESTION_OCR_READER`). */
export const OCR_READERS = ['pp-ocr'] as const;

export interface OcrSettings {
  readonly reader: (typeof OCR_READERS)[number];
  /** Inference workers (PP-OCRv4: each one ONNX Runtime, ~100 MB, one core). */
  readonly workers: number;
  /** Bound on one read; a hung inference is terminated past it. */
  readonly timeoutMs: number;
}

/** The OCR reader the settings name; PP-OCRv4 on ONNX Runtime is the local default. */
export function createOcrReader(settings: OcrSettings): OcrReader {
  switch (settings.reader) {
    case 'pp-ocr':
      return new PpOcrReader({ workers: settings.workers, timeoutMs: settings.timeoutMs });
  }
}
