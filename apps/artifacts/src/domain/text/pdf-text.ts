import { extractText, getDocumentProxy } from 'unpdf';

/**
 * The text of a PDF, page by page (pages separated by a blank line), read by `unpdf` (a server build
 * of Mozilla's pdf.js; ADR 0021): object and cross-reference streams, every standard filter, font
 * encodings and ToUnicode maps as a browser reads them. A scanned PDF has no text to find (no OCR
 * here); an encrypted one is refused by pdf.js and reported as unreadable.
 */
export async function pdfToText(bytes: Uint8Array): Promise<string> {
  if (!Buffer.from(bytes.subarray(0, 5)).toString('latin1').startsWith('%PDF-')) throw new Error('not a PDF (no %PDF- header)');
  // A copy: pdf.js takes the buffer over (transfers it to its worker code).
  const document = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text } = await extractText(document, { mergePages: false });
    return text
      .map((page) => page.trim())
      .filter((page) => page !== '')
      .join('\n\n');
  } finally {
    // Ends the document and its (in-process) worker: nothing stays loaded after each source.
    await document.loadingTask.destroy();
  }
}
