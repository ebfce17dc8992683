// Public face of the ingestion domain: what the service's handlers (wired later) may use.
export { canonicalRendition, type CanonicalRendition, RENDITION_VERSION } from './canonical-rendition.js';
export { imageSha256, sha256Hex, textSha256 } from './content-hashes.js';
export { IMAGE_DEFAULTS, type ImageNormalisationOptions, type NormalisedImage, normaliseImage, pdfSupported } from './image-normalisation.js';
export { isLowQuality, LOW_QUALITY_THRESHOLD, pdqQuality } from './image-quality.js';
export {
  type IngestedMedia,
  type IngestionOptions,
  type IngestionOutcome,
  type IngestionPorts,
  ingestProblem,
  type ProblemInput,
} from './ingest-problem.js';
export { type AddressClass, classifyAddress } from '@openpaw/providers';
export { isMediaRejectedError, MediaRejectedError, REJECTION_REASONS, type RejectionReason } from './media-rejection.js';
export { type SniffedMediaType, sniffMediaType } from './media-type.js';
export { DEFAULT_READING, judgeReading, type ProblemReading, type ProblemReadingOutcome, readProblem, type ReadingSettings } from './reading/read-problem.js';
export { lineGeometry } from './reading/line-geometry.js';
export { dctPhash, hammingDistance, PHASH_VERSION, phashFromHex, phashToHex } from './phash.js';
export { computeProblemSignature, type ProblemSignature, type SignatureImageFacts } from './problem-signature.js';
export {
  DEFAULT_FETCH_CONTENT_TYPES,
  type FetchedResource,
  type HostResolver,
  type ResolvedAddress,
  safeFetch,
  type SafeFetchOptions,
  systemResolver,
} from './safe-fetch.js';
export { normaliseText, TEXT_NORMALISATION_VERSION } from './text-normalisation.js';
export { type Subject, SUBJECTS, tagTopics, TOPIC_TAGGER_VERSION, type TopicTags } from './topic-tagger.js';
