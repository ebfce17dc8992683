import { OpenPawError } from '@openpaw/contracts';

/** A rectangle in the read image's pixels, x1/y1 exclusive. */
export interface OcrBox {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** One character of a line, when the reader gives characters. */
export interface OcrChar {
  readonly text: string;
  /** 0..1: the reader's probability for this character. */
  readonly confidence: number;
  /** Where its ink is, when the reader can place it (PP-OCR: its CTC step's columns, rows from the ink there). */
  readonly box?: OcrBox;
  /**
   * Other readings the reader weighed for this place, most probable first, with their probabilities
   * (text '' = no character there). Empty or absent when the reader gives none. A place where the reader
   * nearly read a character but read none is a char with text '' and the character as its alternative.
   */
  readonly alternatives?: readonly OcrAlternative[];
  /**
   * The probability of the likeliest reading of this place that is neither `text` nor one of `alternatives`
   * (the reader lists only readings above a floor): no reading left unlisted is more probable. What bounds
   * a misreading nobody weighed. Absent when the reader gives no distribution over readings.
   */
  readonly unlisted?: number;
  /**
   * true: its box is ink of its own (a blob centred in its columns), so something is printed there and ''
   * is no reading of it. false: the reader found no ink of its own, and its box is only the columns it
   * placed it in (its rows say nothing of where it sits). Absent when the reader does not say.
   */
  readonly ownInk?: boolean;
}

export interface OcrAlternative {
  readonly text: string;
  readonly confidence: number;
}

/** One line of text as the reader read it. */
export interface OcrLine {
  readonly text: string;
  /** 0..1: the reader's confidence in the line (its weakest character, when it gives characters). */
  readonly confidence: number;
  readonly box: OcrBox;
  /** Empty when the reader gives no per-character results. */
  readonly chars: readonly OcrChar[];
  /** The line's ink as connected blobs, when the reader measures it: what shows stacked glyphs (a fraction). */
  readonly inkBoxes?: readonly OcrBox[];
  /** The reader read this line as LaTeX (Mathpix), not plain text; `text` is that LaTeX written as plain maths. */
  readonly latex?: boolean;
  /** What the reader read on this line but could not write as plain text (e.g. a LaTeX command it does not know): the line must not be trusted. */
  readonly unread?: string;
}

export interface OcrReading {
  /** e.g. `local/pp-ocrv4`, `mathpix/v3-text`, `google/vision-document-text`. */
  readonly reader: string;
  readonly local: boolean;
  /** In reading order: top to bottom, left to right. */
  readonly lines: readonly OcrLine[];
  readonly width: number;
  readonly height: number;
  /** Characters this reader can never produce: a glyph printed outside them is misread, so it must be refused (empty when unknown). */
  readonly alphabet?: ReadonlySet<string>;
  /**
   * The ink around the lines as connected blobs, in the read image's pixels, when the reader measures it:
   * ink no line's box takes in was never read (a root sign, an exponent or a sign the detector left out).
   */
  readonly ink?: readonly OcrBox[];
  /**
   * The reader read the page enlarged this many times (`OcrReadOptions.minLineHeight`): `width`, `height`
   * and every box are the enlarged page's pixels. Absent when it read the page at its own size.
   */
  readonly enlarged?: number;
  /**
   * Present when the read was asked to defer its second look (`OcrReadOptions.secondLook: 'on-request'`)
   * and some glyph could take one: reads the doubted glyphs again alone (those `worth` accepts; all
   * when absent) and gives the reading with their views fused. A reading a judge accepts as it is costs
   * no second look (issue 25: the look is paid only where it can change the outcome).
   */
  readonly lookAgain?: (options: SecondLookOptions) => Promise<OcrReading>;
}

export interface SecondLookOptions extends Omit<OcrReadOptions, 'secondLook' | 'minLineHeight'> {
  /** Whether the doubted glyph `i` of a line's `chars` is worth a look (e.g. it may change the maths). */
  readonly worth?: (chars: readonly OcrChar[], i: number) => boolean;
}

export interface OcrReadOptions {
  readonly signal?: AbortSignal;
  /** Upper bound on the whole read; a hung inference or provider call fails with `OcrTimeoutError`. */
  readonly timeoutMs?: number;
  /**
   * Lines found lower than this (median, in pixels) are read from the page enlarged (at most 4 times) so
   * they reach it, decided from the text boxes before any line is recognised (`OcrReading.enlarged`).
   * A reader that cannot tell without reading ignores it.
   */
  readonly minLineHeight?: number;
  /** 'now' (the default): doubted glyphs are read again within the read. 'on-request': `OcrReading.lookAgain` does it. */
  readonly secondLook?: 'now' | 'on-request';
}

/** The OCR port: an encoded image (PNG, JPEG, WebP) in, its lines out. */
export interface OcrReader {
  readonly reader: string;
  readonly local: boolean;
  read(image: Uint8Array, options?: OcrReadOptions): Promise<OcrReading>;
  close(): Promise<void>;
}

/** The read did not finish in time; the inference was terminated (local) or the call aborted (remote). */
export class OcrTimeoutError extends OpenPawError {
  readonly code = 'ocr_timeout';
  override readonly name = 'OcrTimeoutError';
}

/** The reader cannot take this image (undecodable, empty, too large); `message` names why. */
export class OcrInputError extends OpenPawError {
  readonly code = 'ocr_bad_input';
  override readonly name = 'OcrInputError';
}

/** The reader failed (its runtime, or the remote service); retrying later may help. */
export class OcrReaderError extends OpenPawError {
  readonly code = 'ocr_reader_failed';
  override readonly name = 'OcrReaderError';
}

/** The reader was closed. */
export class OcrReaderClosedError extends OpenPawError {
  readonly code = 'ocr_reader_closed';
  override readonly name = 'OcrReaderClosedError';
}

/** Lines in reading order: rows by vertical overlap, top to bottom, then left to right within a row. */
export function readingOrder<T extends { readonly box: OcrBox }>(items: readonly T[]): T[][] {
  const rows: { top: number; bottom: number; items: T[] }[] = [];
  for (const item of [...items].sort((a, b) => a.box.y0 + a.box.y1 - (b.box.y0 + b.box.y1))) {
    const centre = (item.box.y0 + item.box.y1) / 2;
    const row = rows.find((r) => centre >= r.top && centre <= r.bottom);
    if (row === undefined) rows.push({ top: item.box.y0, bottom: item.box.y1, items: [item] });
    else row.items.push(item);
  }
  return rows.sort((a, b) => a.top - b.top).map((r) => r.items.sort((a, b) => a.box.x0 - b.box.x0));
}
