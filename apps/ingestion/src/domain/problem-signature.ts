import type { CanonicalRendition } from './canonical-rendition.js';
import { type ContentSensitivityTag, tagContentSensitivity } from './content-sensitivity.js';
import { imageSha256, textSha256 } from './content-hashes.js';
import type { NormalisedImage } from './image-normalisation.js';
import { pdqQuality } from './image-quality.js';
import { extractMathsSignature, type MathsSignature, type ReadToken } from './maths-signature/index.js';
import { dctPhash, PHASH_VERSION, phashToHex } from './phash.js';
import { normaliseText, TEXT_NORMALISATION_VERSION } from './text-normalisation.js';
import { tagTopics, type TopicTags } from './topic-tagger.js';

/**
 * What identifies a problem for retrieval: the keys of spec 01's exact tiers, the pHash with the
 * version it was computed under, the quality gate for pHash matching, and topic tags.
 */
export interface ProblemSignature {
  readonly normalisedText: string;
  readonly textSha256: string;
  readonly textNormalisationVersion: string;
  readonly imageSha256?: string;
  /** 64-bit DCT pHash, 16 lower-case hex digits. */
  readonly phash?: string;
  readonly phashVersion: string;
  /** PDQ-style quality 0..100 of the hashed rendition. */
  readonly quality?: number;
  /**
   * For images: the picture is mostly text, so its pHash describes a layout more than a problem, and a
   * pHash near-duplicate must be confirmed against the OCR'd text before it is trusted.
   */
  readonly textDominant?: boolean;
  readonly topicTags: TopicTags;
  /** The problem's maths, canonicalised and hashed; absent when its text holds none that parses. */
  readonly maths?: MathsSignature;
  /** Spec 01's sensitivity tag, from rules over the submitted or OCR'd text (see content-sensitivity.ts). */
  readonly sensitivity?: ContentSensitivityTag;
}

export interface SignatureImageFacts {
  readonly image: NormalisedImage;
  readonly rendition: CanonicalRendition;
  readonly ocrConfidence: number;
  /** The OCR words that carry maths, with their confidence 0..1 (the maths signature's reading). */
  readonly mathsReading?: readonly ReadToken[];
  /** The maths reader's confidence in the reading as a whole (two agreeing passes beat their weakest word). */
  readonly mathsConfidence?: number;
}

/** Alphanumeric characters an OCR reading needs before the image counts as text-dominant. */
export const TEXT_DOMINANT_MIN_CHARS = 12;
/** Tesseract mean confidence below which a reading is too unreliable to call the image text-dominant. */
export const TEXT_DOMINANT_MIN_CONFIDENCE = 40;

/**
 * Computes the signature from a problem's text (typed, or OCR'd from its image) and, for images, the
 * normalised pixels and canonical rendition. Pure apart from hashing; the same input always gives the
 * same signature, which is what makes the saga's idempotency key stable.
 */
export function computeProblemSignature(rawText: string, imageFacts?: SignatureImageFacts): ProblemSignature {
  const normalisedText = normaliseText(rawText);
  // An image's maths is only as sure as its reading: per maths word when the OCR gave words, else the page.
  const reading = imageFacts === undefined ? undefined : (imageFacts.mathsReading ?? [{ text: '(page)', confidence: imageFacts.ocrConfidence / 100 }]);
  const { signature: maths } = extractMathsSignature(normalisedText, reading, imageFacts?.mathsConfidence);
  const base = {
    normalisedText,
    textSha256: textSha256(normalisedText),
    textNormalisationVersion: TEXT_NORMALISATION_VERSION,
    phashVersion: PHASH_VERSION,
    topicTags: tagTopics(normalisedText),
    ...(maths === undefined ? {} : { maths }),
    sensitivity: tagContentSensitivity(rawText),
  };
  if (imageFacts === undefined) return base;
  const { image, rendition, ocrConfidence } = imageFacts;
  const alphanumerics = normalisedText.replace(/[^0-9a-z]/g, '').length;
  return {
    ...base,
    imageSha256: imageSha256(image.width, image.height, image.rgb),
    phash: phashToHex(dctPhash(rendition.hashInput)),
    // A blank page has no content box; its quality is 0 by definition so it can never pHash-match.
    quality: rendition.contentBox === null ? 0 : pdqQuality(rendition.qualityInput),
    textDominant: alphanumerics >= TEXT_DOMINANT_MIN_CHARS && ocrConfidence >= TEXT_DOMINANT_MIN_CONFIDENCE,
  };
}
