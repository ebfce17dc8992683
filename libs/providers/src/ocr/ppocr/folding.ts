import type { OcrChar } from '../port.js';

/**
 * PP-OCRv4's own spellings folded to what was printed (measured on the issue-25 set): its Chinese
 * dictionary reads brackets, colons and commas as their full-width forms (NFKC folds those, one
 * character at a time, so boxes stay with their characters), and reads a caret between two digits as
 * "~". Nothing else is rewritten: maths normalisation is not the reader's business.
 */
export function foldPpOcrChars(chars: readonly OcrChar[]): OcrChar[] {
  return chars.map((c, i) => {
    if (c.text === '~' && /^[0-9]$/.test(chars[i - 1]?.text ?? '') && /^[0-9]$/.test(chars[i + 1]?.text ?? '')) return { ...c, text: '^' };
    const folded = /^[\uFF01-\uFF5E\u3000]$/.test(c.text) ? c.text.normalize('NFKC') : c.text;
    return folded === c.text ? c : { ...c, text: folded };
  });
}
