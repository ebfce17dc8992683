import type { ProviderKind } from '../provider-settings.js';

/** What a service calls providers for: a provider kind, or OCR (ingestion's remote readers). A deployment keeps one Secret per purpose. */
export type ProviderPurpose = ProviderKind | 'ocr';

const LLM_KEYS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/**
 * The credentials (environment variables, and the keys of the purpose's Secret) each purpose's
 * settings reader and clients read. Blobs have none: GCS is reached by workload identity.
 */
export const PROVIDER_CREDENTIALS: Readonly<Record<ProviderPurpose, readonly string[]>> = {
  llm: LLM_KEYS,
  embedder: ['OPENPAW_EMBEDDINGS_API_KEY', 'OPENAI_API_KEY'],
  blobs: [],
  scholarly: ['OPENALEX_API_KEY', 'CROSSREF_PLUS_API_TOKEN', 'SEMANTIC_SCHOLAR_API_KEY', 'SERPAPI_API_KEY'],
  // Image search keys; Rekognition through the AWS SDK's own variables.
  visual: ['SERPAPI_API_KEY', 'BRAVE_SEARCH_API_KEY', 'BING_SEARCH_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'],
  // Mathpix, Google Vision, and the vision-LLM reader's provider keys.
  ocr: ['MATHPIX_APP_ID', 'MATHPIX_APP_KEY', 'GOOGLE_VISION_API_KEY', 'GOOGLE_VISION_ACCESS_TOKEN', ...LLM_KEYS],
};

/**
 * The purposes each service calls providers for: its config validates exactly these kinds at start
 * (`assertProviderSettings(env, providerKindsOf(service))`) and the deployment gives it exactly these
 * purposes' Secrets. A service not listed calls no provider.
 */
export const SERVICE_PROVIDER_PURPOSES = {
  ingestion: ['blobs', 'ocr'],
  retrieval: ['embedder'],
  solve: ['llm', 'blobs'],
  assets: ['blobs'],
  artifacts: ['llm', 'embedder', 'blobs'],
  research: ['llm', 'scholarly', 'blobs'],
  'visual-search': ['llm', 'visual', 'blobs'],
} as const satisfies Readonly<Record<string, readonly ProviderPurpose[]>>;
export type ProviderCallingService = keyof typeof SERVICE_PROVIDER_PURPOSES;

/** A service's purposes ([] for one that calls no provider). */
export function providerPurposesOf(service: string): readonly ProviderPurpose[] {
  return (SERVICE_PROVIDER_PURPOSES as Readonly<Record<string, readonly ProviderPurpose[]>>)[service] ?? [];
}

/** The provider kinds a service validates at start (its purposes but OCR, which ingestion validates with its reader). */
export function providerKindsOf(service: ProviderCallingService): ProviderKind[] {
  return providerPurposesOf(service).filter((purpose): purpose is ProviderKind => purpose !== 'ocr');
}
