import type { UncertainReading } from '@openpaw/contracts';
import { canonicalRendition } from './canonical-rendition.js';
import { type ImageNormalisationOptions, type NormalisedImage, normaliseImage } from './image-normalisation.js';
import { isMediaRejectedError, MediaRejectedError, type RejectionReason } from './media-rejection.js';
import { OcrInputError, type OcrReader, OcrTimeoutError } from '@openpaw/providers/ocr';
import { DEFAULT_READING, type ReadingSettings, readProblem } from './reading/read-problem.js';
import { computeProblemSignature, type ProblemSignature } from './problem-signature.js';
import type { FetchedResource } from './safe-fetch.js';

export type ProblemInput =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'image'; readonly bytes: Uint8Array }
  | { readonly kind: 'url'; readonly url: string };

export type IngestedMedia =
  | { readonly kind: 'text' }
  | {
      readonly kind: 'image';
      readonly sourceType: NormalisedImage['sourceType'];
      readonly width: number;
      readonly height: number;
      /** The normalised rendition as PNG; the handler stores it in blob storage, never in a message. */
      readonly png: Buffer;
      readonly skewDegrees: number;
      /** What the reader read: the text, how sure it is of the maths (0..100), and which reader it was. */
      readonly ocr: ImageReading;
    };

export interface ImageReading {
  readonly text: string;
  /** 0..100: the weakest maths character's probability. */
  readonly confidence: number;
  readonly reader: string;
}

export type IngestionOutcome =
  | { readonly status: 'normalised'; readonly signature: ProblemSignature; readonly media: IngestedMedia; readonly sourceUrl?: string }
  | { readonly status: 'rejected'; readonly reason: RejectionReason; readonly detail: string; readonly reading?: UncertainReading };

export interface IngestionPorts {
  /** The OCR port (PP-OCRv4 locally by default; see `createOcrReader`). */
  readonly reader: OcrReader;
  /** URL fetcher; in production `safeFetch` with the service's limits, in tests one pointed at a local server. */
  readonly fetch: (url: string) => Promise<FetchedResource>;
}

export interface IngestionOptions {
  readonly image?: ImageNormalisationOptions;
  /** Longest accepted problem text, in characters after normalisation. */
  readonly maxTextLength?: number;
  /** When a reading is refused as `unreadable`, and how long a read may take. */
  readonly reading?: ReadingSettings;
}

const DEFAULT_MAX_TEXT_LENGTH = 20_000;

/**
 * The INGESTING step of spec 01 as one call: an uploaded image, a text or a URL becomes a problem
 * signature (`ingestion.MediaNormalized`) or a typed rejection (`ingestion.MediaRejected`). Bad input
 * never throws; only infrastructure failures (the OCR engine dying, say) do, so the caller can retry.
 */
export async function ingestProblem(input: ProblemInput, ports: IngestionPorts, options: IngestionOptions = {}): Promise<IngestionOutcome> {
  try {
    switch (input.kind) {
      case 'text':
        return ingestText(input.text, options);
      case 'image':
        return await ingestImage(input.bytes, ports, options);
      case 'url': {
        const fetched = await ports.fetch(input.url);
        const outcome =
          fetched.contentType === 'text/plain' ? ingestText(decodeUtf8(fetched.bytes), options) : await ingestImage(fetched.bytes, ports, options);
        return outcome.status === 'normalised' ? { ...outcome, sourceUrl: fetched.finalUrl } : outcome;
      }
    }
  } catch (error) {
    if (isMediaRejectedError(error)) return { status: 'rejected', reason: error.reason, detail: error.detail, ...(error.reading === undefined ? {} : { reading: error.reading }) };
    throw error;
  }
}

function ingestText(text: string, options: IngestionOptions): IngestionOutcome {
  const maxLength = options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH;
  // Refuse absurd inputs before doing the work; the exact limit applies to the normalised text below.
  if (text.length > maxLength * 4) throw new MediaRejectedError('too_large', `${text.length} characters, limit ${maxLength}`);
  const signature = computeProblemSignature(text);
  if (signature.normalisedText === '') throw new MediaRejectedError('empty', 'text is empty after normalisation');
  if (signature.normalisedText.length > maxLength) {
    throw new MediaRejectedError('too_large', `${signature.normalisedText.length} characters, limit ${maxLength}`);
  }
  return { status: 'normalised', signature, media: { kind: 'text' } };
}

async function ingestImage(bytes: Uint8Array, ports: IngestionPorts, options: IngestionOptions): Promise<IngestionOutcome> {
  const image = await normaliseImage(bytes, options.image);
  const rendition = await canonicalRendition(image);
  if (rendition.contentBox === null) throw new MediaRejectedError('empty', 'image is blank');
  const read = await readImage(image, rendition.skewDegrees, ports.reader, options.reading ?? DEFAULT_READING);
  if (read.status === 'unreadable') throw new MediaRejectedError('unreadable', read.reason, read.reading);
  const { text, tokens, confidence, reader } = read.reading;
  const ocr: ImageReading = { text, confidence: 100 * confidence, reader };
  const signature = computeProblemSignature(text, { image, rendition, ocrConfidence: ocr.confidence, mathsReading: tokens, mathsConfidence: confidence });
  return {
    status: 'normalised',
    signature,
    media: {
      kind: 'image',
      sourceType: image.sourceType,
      width: image.width,
      height: image.height,
      png: image.png,
      skewDegrees: rendition.skewDegrees,
      ocr,
    },
  };
}

/** A read the reader refuses (bad input) or gives up on (timeout) is a rejection naming why; a broken reader throws for a retry. */
async function readImage(image: NormalisedImage, skewDegrees: number, reader: OcrReader, settings: ReadingSettings): ReturnType<typeof readProblem> {
  try {
    return await readProblem(image, skewDegrees, reader, settings);
  } catch (error) {
    if (error instanceof OcrInputError) throw new MediaRejectedError('unreadable', error.message);
    if (error instanceof OcrTimeoutError) throw new MediaRejectedError('unreadable', `${error.message}; please send a smaller or sharper image`);
    throw error;
  }
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new MediaRejectedError('unreadable', 'text is not valid UTF-8');
  }
}
