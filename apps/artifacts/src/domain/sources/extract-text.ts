import { OpenPawError } from '@openpaw/contracts';
import { readHtml } from '@openpaw/providers';
import { pdfToText } from '../text/pdf-text.js';

export type DocumentFormat = 'pdf' | 'html' | 'text';

/** Thrown for bytes that are not a document this service can read. */
export class UnsupportedDocumentError extends OpenPawError {
  readonly code = 'unsupported_document';
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedDocumentError';
  }
}

/** What a document is, from its bytes first (magic numbers), then its declared type and name. */
export function documentFormatOf(body: Uint8Array, contentType: string, filename?: string): DocumentFormat {
  const head = Buffer.from(body.subarray(0, 512)).toString('latin1');
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const name = filename?.toLowerCase() ?? '';
  if (head.startsWith('%PDF-')) return 'pdf';
  if (type === 'application/pdf' || name.endsWith('.pdf')) throw new UnsupportedDocumentError('declared as a PDF but has no %PDF- header');
  if (type === 'text/html' || type === 'application/xhtml+xml' || /\.x?html?$/.test(name) || /^\s*(<!doctype html|<html)/i.test(head)) return 'html';
  if (type.startsWith('text/') || /\.(txt|md|markdown|csv|rst)$/.test(name) || type === 'application/json' || type === 'application/octet-stream' || type === '') {
    if (looksBinary(body)) throw new UnsupportedDocumentError(`binary content (${type || 'unknown type'}) is not a text document`);
    return 'text';
  }
  throw new UnsupportedDocumentError(`unsupported document type ${type}`);
}

function looksBinary(body: Uint8Array): boolean {
  const sample = body.subarray(0, 4096);
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/** The text of a document and a title if it carries one. */
export async function extractText(body: Uint8Array, format: DocumentFormat): Promise<{ text: string; title?: string }> {
  switch (format) {
    case 'pdf':
      return { text: await pdfToText(body) };
    case 'html': {
      const { title, text } = readHtml(new TextDecoder('utf-8').decode(body), { dropBoilerplate: true, paragraphBreak: '\n\n' });
      return title === undefined ? { text } : { text, title };
    }
    case 'text':
      return { text: new TextDecoder('utf-8').decode(body) };
  }
}
