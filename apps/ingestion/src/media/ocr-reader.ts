import { createOcrReader as createConfiguredOcrReader, OCR_READER_NAMES, type OcrReader, type OcrReaderSettings } from '@openpaw/providers/ocr';

/** The readers ingestion can be configured with (`OPENPAW_INGESTION_OCR_READER`; credentials of remote ones from env). */
export const OCR_READERS = OCR_READER_NAMES;

export type OcrSettings = OcrReaderSettings;

/** The OCR reader the settings name; PP-OCRv4 on ONNX Runtime is the local default. Remote readers take their credentials from `env` (the service passes `settings.providerEnv`). */
export function createOcrReader(settings: OcrSettings, env: Readonly<Record<string, string | undefined>> = {}): OcrReader {
  return createConfiguredOcrReader(settings, env);
}

/** The configured reader and the local one (PP-OCRv4) it shares its workers with: what a tenant whose images may not leave is read by. */
export function createOcrReaders(settings: OcrSettings, env: Readonly<Record<string, string | undefined>> = {}): { readonly configured: OcrReader; readonly local: OcrReader } {
  const local = createConfiguredOcrReader({ ...settings, reader: 'pp-ocr' }, env);
  return { local, configured: settings.reader === 'pp-ocr' ? local : createConfiguredOcrReader(settings, env, local) };
}
