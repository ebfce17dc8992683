// Public face of @openpaw/providers: ports, real adapters, local defaults and their factories.

// ---- shared ----
export { type Clock, type RandomSource, systemClock } from './shared/clock.js';
export type { Env } from './shared/env.js';
export type { ProviderLogger } from './shared/logger.js';
export { redactSecrets } from './shared/redact.js';
export { loadSharp, type SharpFunction } from './shared/load-sharp.js';
export { storableJsonReviver, toStorableText } from './shared/storable-text.js';
export { defaultRetryPolicy, type RetryPolicy } from './shared/retry.js';

// ---- LLM ----
export type {
  AttemptRecord,
  BackgroundCallLedger,
  ChatImage,
  ChatMessage,
  ChatModel,
  ChatModelRequest,
  ChatModelResponse,
  ChatOptions,
  ChatResult,
  ChatRole,
  JsonSchema,
  LlmClient,
  ProviderCredentials,
  ProviderErrorKind,
  StructuredOptions,
  StructuredResult,
  TokenUsage,
} from './llm/port.js';
export { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from './llm/errors.js';
export { ResilientLlmClient, type ResilientLlmClientConfig } from './llm/resilient-llm-client.js';
export { type BudgetReservation, CostBudgets, RunBudget } from './llm/cost-budget.js';
export type { CostBudget } from './llm/port.js';
export { type CooldownPolicy, defaultCooldownPolicy, ProviderCooldown } from './llm/cooldown.js';
export {
  costUsd,
  defaultPriceTable,
  fallbackPrice,
  lookupPrice,
  type ModelPrice,
  type PriceLookup,
  type PriceTable,
  priceTableFromJson,
} from './llm/pricing.js';
export { type ModelRef, parseModelRef } from './llm/model-ref.js';
export { OpenAiChatModel, type OpenAiChatModelConfig } from './llm/openai-chat-model.js';
export { AnthropicChatModel, type AnthropicChatModelConfig } from './llm/anthropic-chat-model.js';
export { GeminiChatModel, type GeminiChatModelConfig } from './llm/gemini-chat-model.js';
export { LOCAL_MODEL_ID, LocalChatModel } from './llm/local/local-chat-model.js';
export {
  createLlmFromEnv,
  DEFAULT_LLM_CONCURRENCY,
  DEFAULT_MODELS,
  llmConcurrencyFromEnv,
  type LlmFactoryOptions,
  type LlmSettings,
  llmSettingsFromEnv,
} from './llm/create-llm-from-env.js';

// ---- per-user API keys ----
export { InMemoryUserKeyStore, KEY_PROVIDERS, type KeyProvider, type StoredUserKey, type UserKeyStore } from './keys/user-key-store.js';
export { UserKeyDecryptionError, UserKeyVault } from './keys/user-key-vault.js';
export { KEY_ENCRYPTION_KEY_ENV, SEALING_PREVIOUS_PRIVATE_KEY_ENV, SEALING_PRIVATE_KEY_ENV, SEALING_PUBLIC_KEY_ENV } from './keys/sealing.js';

// ---- embeddings ----
export { cosineSimilarity, type Embedder, type EmbeddingResult } from './embeddings/port.js';
export { embedText, LocalHashedEmbedder, type LocalHashedEmbedderOptions, normaliseText } from './embeddings/local-hashed-embedder.js';
export { OpenAiEmbedder, type OpenAiEmbedderConfig } from './embeddings/openai-embedder.js';
export { createEmbedderFromEnv, type EmbedderSettings, embedderSettingsFromEnv } from './embeddings/create-embedder-from-env.js';

// ---- blob storage (also its own entry point, @openpaw/providers/blob) ----
export * from './blob/index.js';
export * from './web/index.js';

// ---- image search ----
export type { ImageSearch, ImageSearchHit, ImageSearchOptions, ImageSearchResult } from './image-search/port.js';
export { SerpApiImageSearch, type SerpApiImageSearchConfig } from './image-search/serpapi-image-search.js';
export { BraveImageSearch, type BraveImageSearchConfig } from './image-search/brave-image-search.js';
export { BingImageSearch, type BingImageSearchConfig } from './image-search/bing-image-search.js';

// ---- celebrity recognition ----
export { type CelebrityRecognizer, type FaceBox, largestFirst, type RecognitionResult, type RecognizedCelebrity } from './recognition/port.js';
export { RekognitionRecognizer, type RekognitionRecognizerConfig } from './recognition/rekognition-recognizer.js';
export { MAX_RECOGNITION_BYTES, type PreparedImage, prepareImageForRecognition, UnsupportedImageError } from './recognition/prepare-image.js';
export { type FetchedImage, IMAGE_CONTENT_TYPES, type ImageFetcher, SafeImageFetcher } from './recognition/image-fetcher.js';
export {
  createVisualProvidersFromEnv,
  type VisualProviders,
  type VisualProviderSettings,
  visualProviderSettingsFromEnv,
} from './recognition/create-visual-providers-from-env.js';

// ---- every provider kind's settings, validated before a service builds ----
export { assertProviderSettings, PROVIDER_SETTINGS, type ProviderKind } from './provider-settings.js';
export { PROVIDER_CREDENTIALS, type ProviderCallingService, type ProviderPurpose, providerKindsOf, providerPurposesOf, SERVICE_PROVIDER_PURPOSES } from './credentials/index.js';

// ---- the local visual world (offline default of image search and recognition) ----
export * from './visual-world/index.js';

// ---- scholarly sources ----
export * from './scholarly/index.js';
export { type LlmAnswerObservation, type LlmAttemptObservation, type LlmCallObserver, observeLlmCalls } from './llm-observed/observed-llm-client.js';
