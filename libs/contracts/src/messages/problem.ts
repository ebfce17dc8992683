import { z } from 'zod';
import { freeText } from '../free-text.js';

/** Question intents a maths signature distinguishes; two problems with the same maths but other intents differ. */
export const MATHS_INTENTS = ['solve', 'evaluate', 'simplify', 'expand', 'factor', 'differentiate', 'integrate', 'unspecified'] as const;

/**
 * The mathematical content of a problem (equations, expressions, numbers, unknowns) parsed and
 * canonicalised (operand order, implicit multiplication, renamed unknowns, word operators), so copies
 * and paraphrases of one problem share `hash` and problems with other numbers never do.
 */
export const mathsSignature = z.object({
  /** Canonicalisation rules version; hashes are comparable only under one version. */
  version: z.string().min(1),
  /**
   * sha256 of version, intent, canonical form and (from maths-sig/v3) the asked-for unknown's canonical
   * index: name-free from v3, so a renaming of a problem shares its hash (v2 hashed the names too).
   */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /**
   * Ignored from maths-sig/v4 (not sent; retrieval looks a key up under the current version only, and
   * the `maths-reindex` sweep re-keys older rows). Producers of v3 sent the v2 hash here for a dual read.
   */
  previousHash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** The canonical form, e.g. `(= (+ -9 (* 4 v0)) 23)`; statements sorted and joined by `;`. */
  canonical: z.string().min(1),
  intent: z.enum(MATHS_INTENTS),
  /** Every number in the maths, canonical spelling, sorted: what the number gate compares. */
  numbers: z.array(z.string()),
  /**
   * The problem's own name of each canonical unknown (`unknowns[i]` is `vi` in `canonical`): two problems
   * with one hash map onto each other through `unknowns[i] ↔ unknowns'[i]`. Absent from older producers.
   */
  unknowns: z.array(z.string().max(40)).max(40).optional(),
  /** The unknown the question asks for, in the problem's own name (its canonical index is part of the hash). */
  asks: z.string().max(40).optional(),
  /** How sure the reading of the maths is, 0..1: 1 for typed text; the weakest maths token for OCR. */
  confidence: z.number().min(0).max(1),
  /** OCR only: the maths tokens as read with their confidence 0..1 (the why behind `confidence`). */
  tokens: z.array(z.object({ text: z.string(), confidence: z.number().min(0).max(1) })).optional(),
});
export type MathsSignature = z.infer<typeof mathsSignature>;

/** What a submitted problem is, once ingested: the key to retrieval, registration and indexing. */
export const CONTENT_SENSITIVITIES = ['standard', 'sensitive'] as const;

export const problemSignature = z.object({
  /** NFKC, case/whitespace folded, math symbols canonicalised. */
  normalizedText: z.string(),
  textSha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** sha256 of the normalised image bytes, for image submissions. */
  imageSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  /** 64-bit DCT pHash as 16 hex digits, with the algorithm version it was computed with. */
  phash: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  phashVersion: z.string().optional(),
  /** Gradient-energy quality of the hashed image: low-quality images never match by pHash. */
  imageQuality: z.number().min(0).optional(),
  ocrConfidence: z.number().min(0).max(100).optional(),
  topicTags: z.object({ subject: z.string(), keywords: z.array(z.string()) }),
  /** The problem's mathematics, canonicalised and hashed (absent when the text holds no maths). */
  maths: mathsSignature.optional(),
  /**
   * The content sensitivity ingestion tagged from the text (personal data, exam-paper markers,
   * explicit content); absent from producers that do not tag (read as `standard`).
   */
  contentSensitivity: z.enum(CONTENT_SENSITIVITIES).optional(),
  /** Why the content was tagged sensitive: the rules that matched (never the matched text itself). */
  sensitivityReasons: z.array(z.string().max(100)).max(10).optional(),
});
export type ProblemSignature = z.infer<typeof problemSignature>;

/**
 * The ingestion service's rule for a text-dominant image (`TEXT_DOMINANT_MIN_CHARS`,
 * `TEXT_DOMINANT_MIN_CONFIDENCE` in its problem-signature.ts), for readers of the v1 contract, which
 * does not carry the flag: at least 12 alphanumerics read with a mean OCR confidence of 40 or more.
 * For such an image the text alone may identify it (retrieval's exact-text stage, the coordinator's
 * problem key); an image that carries more than its text (a figure with a caption) is identified by
 * the image. Undefined for a signature without an image.
 */
export const TEXT_DOMINANT_MIN_CHARS = 12;
export const TEXT_DOMINANT_MIN_CONFIDENCE = 40;

export function isTextDominant(signature: ProblemSignature): boolean | undefined {
  if (signature.imageSha256 === undefined && signature.phash === undefined) return undefined;
  const alphanumerics = signature.normalizedText.replace(/[^0-9a-z]/g, '').length;
  return alphanumerics >= TEXT_DOMINANT_MIN_CHARS && (signature.ocrConfidence ?? 0) >= TEXT_DOMINANT_MIN_CONFIDENCE;
}

/** A submission as the gateway received it; bytes never travel in messages, only blob keys. */
export const submission = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: freeText().min(1).max(20_000) }),
  z.object({ kind: z.literal('url'), url: z.url({ protocol: /^https?$/ }) }),
  z.object({
    kind: z.literal('upload'),
    /** Blob key of the uploaded bytes. */
    blobKey: z.string().min(1),
    contentType: z.string().optional(),
    filename: freeText().max(255).optional(),
    byteLength: z.int().nonnegative(),
  }),
]);
export type Submission = z.infer<typeof submission>;

/** The match methods of RetrievalHit/RetrievalMiss v1 (before the maths-signature stage). */
export const retrievalMethodV1 = z.enum(['exact_image', 'exact_phash', 'near_duplicate', 'text_exact', 'vector', 'hybrid']);
export const retrievalMethod = z.enum([...retrievalMethodV1.options, 'maths_signature']);

export const retrievalTraceEntry = z.object({
  stage: z.string(),
  candidate: z.string().nullable(),
  score: z.number().nullable(),
  accepted: z.boolean(),
  reason: z.string(),
});

export const solutionProvenance = z.object({
  model: z.string(),
  promptVersion: z.string(),
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
  costUsd: z.number().nonnegative(),
  latencyMs: z.number().nonnegative(),
  /**
   * What the offline maths engine did: solved the problem itself (no model, cost 0), checked the
   * model's final answer and agreed ("checked by the maths engine"), or could not check it. Flat
   * scalars, so asset provenance (a flat record) keeps them as they are.
   */
  mathsEngine: z.enum(['solved', 'checked_agrees', 'not_checked']).optional(),
  mathsEngineVersion: z.string().optional(),
  /** The engine's category (e.g. quadratic_equation) and its check or reason, when it had one. */
  mathsEngineCategory: z.string().optional(),
  mathsEngineDetail: z.string().optional(),
});

/**
 * The most pixels a problem image may have (width × height): the gateway refuses larger ones, its
 * admission charges an image whose header hides its size this much, and ingestion decodes no more.
 */
export const MAX_PROBLEM_IMAGE_PIXELS = 40_000_000;

export const SUBSCRIPTION_TIERS = ['free', 'pro', 'enterprise'] as const;

/**
 * `StartRun.input` of a `retrieve_or_generate` run: what the gateway sends and the coordinator's
 * definition accepts (one schema, so the two cannot disagree).
 */
export const retrieveOrGenerateStartInput = z.object({
  submission,
  intent: z.string().min(1).max(200).optional(),
  subscriptionTier: z.enum(SUBSCRIPTION_TIERS).default('free'),
  contentSensitivity: z.enum(CONTENT_SENSITIVITIES).default('standard'),
  /**
   * Digest of the submitted content (normalised text, image bytes or URL) that the idempotency key
   * sha256(contentDigest + user id + intent) was derived from; the real problem signature is only
   * known after INGESTING.
   */
  contentDigest: z.string().min(1).max(256),
  /**
   * Read → confirm → solve (issue 25): when an image's reading is uncertain, the run waits in
   * AWAITING_READING_CONFIRMATION for its owner to confirm or correct the reading instead of refusing.
   */
  confirmReading: z.boolean().optional(),
});

/** Longest corrected reading, in characters (the limit of a text submission). */
export const MAX_READING_TEXT = 20_000;

/** A reading of an image that was not trusted: what was read and the characters it doubted. */
export const uncertainReading = z.object({
  /** The text as read, lines joined by newlines. */
  text: z.string().max(MAX_READING_TEXT),
  /** What could not be read, each named (a character with its probability, ink outside every line, ...). */
  doubts: z.array(z.string().max(500)).max(50),
});
export type UncertainReading = z.infer<typeof uncertainReading>;

/** `SubmitRunInput.inputType` of the answer to an uncertain reading. */
export const READING_DECISION_INPUT = 'reading_decision';

/**
 * `SubmitRunInput.payload` of a reading decision: the reading confirmed as read, or the problem's text
 * as corrected by its owner (free text: no NUL, at most MAX_READING_TEXT characters).
 */
export const correctedReadingText = freeText()
  .trim()
  .min(1, 'the corrected text is empty')
  .max(MAX_READING_TEXT, `the corrected text is longer than ${MAX_READING_TEXT} characters`);

export const readingDecisionInput = z.union([z.strictObject({ confirm: z.literal(true) }), z.strictObject({ text: correctedReadingText })]);
export type ReadingDecisionInput = z.infer<typeof readingDecisionInput>;
