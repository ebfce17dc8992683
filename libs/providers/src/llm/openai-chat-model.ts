import type OpenAI from 'openai';
import { type Clock, systemClock } from '../shared/clock.js';
import { ProviderError } from './errors.js';
import { completeInBackground, DEFAULT_POLL_BACKOFF, isDeepResearchModel, type PollBackoff } from './openai-background-responses.js';
import { dataUrlOf, imagesOf } from './chat-images.js';
import type { ChatMessage, ChatModel, ChatModelRequest, ChatModelResponse } from './port.js';
import { estimateInputTokens } from './pricing.js';
import { providerFailure } from './provider-failure.js';
import { SdkClientCache } from './sdk-clients.js';

export interface OpenAiChatModelConfig {
  /** From env (`OPENAI_API_KEY`); per-user keys can be passed per call instead. */
  readonly apiKey?: string;
  /** `OPENAI_BASE_URL`: any OpenAI-compatible server (vLLM, Ollama, llama.cpp) as `http://host:port/v1`. */
  readonly baseURL?: string;
  /** The model-id prefix this adapter answers to; `openai` unless several compatible servers are wired. */
  readonly provider?: string;
  /**
   * `max_completion_tokens` (OpenAI's current name) or `max_tokens` (what most compatible servers
   * read). Defaults to the former for api.openai.com and the latter when a base URL is set.
   */
  readonly maxTokensParam?: 'max_completion_tokens' | 'max_tokens';
  readonly clock?: Clock;
  /**
   * Models run in the background through the Responses API and polled with backoff (long "deep
   * research" calls): by default those named `*deep-research*`.
   */
  readonly isBackgroundModel?: (model: string) => boolean;
  readonly pollBackoff?: PollBackoff;
}

/** Chat completions through the `openai` SDK (SDK retries off; the resilient client retries). */
export class OpenAiChatModel implements ChatModel {
  readonly provider: string;
  readonly hasDefaultCredentials: boolean;
  private readonly maxTokensParam: 'max_completion_tokens' | 'max_tokens';
  private readonly clock: Clock;
  /** Per model and key; the SDK is loaded on the first call (a service that never calls it never loads it). */
  private readonly clients: SdkClientCache<OpenAI>;

  constructor(private readonly config: OpenAiChatModelConfig) {
    this.provider = config.provider ?? 'openai';
    // A compatible server (Ollama, llama.cpp) usually needs no key: a base URL alone is enough.
    this.hasDefaultCredentials = config.apiKey !== undefined || config.baseURL !== undefined;
    this.maxTokensParam = config.maxTokensParam ?? (config.baseURL === undefined ? 'max_completion_tokens' : 'max_tokens');
    this.clock = config.clock ?? systemClock;
    this.clients = new SdkClientCache((apiKey) => this.client(apiKey));
  }

  private async client(apiKey: string): Promise<OpenAI> {
    const { default: OpenAI } = await import('openai');
    return new OpenAI({
      apiKey,
      // Explicit, so OPENAI_BASE_URL in the process env cannot redirect a per-user-key client.
      baseURL: this.config.baseURL ?? 'https://api.openai.com/v1',
      maxRetries: 0,
      timeout: 24 * 60 * 60 * 1000, // the attempt's AbortSignal is the deadline
      organization: null,
      project: null,
    });
  }

  async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    const apiKey = request.apiKey ?? (this.hasDefaultCredentials ? (this.config.apiKey ?? 'no-key-required') : undefined);
    if (apiKey === undefined) throw new ProviderError('no_credentials', this.provider, 'no API key configured and none passed for this call');
    const client = await this.clients.client(request.model, apiKey);
    const secrets = [request.apiKey, this.config.apiKey];
    if ((this.config.isBackgroundModel ?? isDeepResearchModel)(request.model)) {
      return completeInBackground(client, request, this.provider, this.clock, this.config.pollBackoff ?? DEFAULT_POLL_BACKOFF, secrets);
    }
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages.map((m) => openAiMessage(m, this.provider)),
          temperature: request.temperature,
          [this.maxTokensParam]: request.maxTokens,
          ...(request.responseSchema
            ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.responseSchema.name, schema: { ...request.responseSchema.schema }, strict: false } } }
            : {}),
        },
        { signal: request.signal, maxRetries: 0 },
      );
    } catch (error) {
      throw providerFailure(error, this.provider, request.signal, this.clock.now(), secrets);
    }
    const choice = completion.choices?.[0];
    const text = choice?.message?.content;
    if (typeof text !== 'string') {
      throw new ProviderError('malformed_response', this.provider, `completion has no text content (finish_reason=${choice?.finish_reason ?? 'none'})`);
    }
    const usage = completion.usage;
    return {
      text,
      model: typeof completion.model === 'string' ? completion.model : request.model,
      usage:
        usage !== undefined && usage !== null
          ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens }
          : { inputTokens: estimateInputTokens(request.messages.map((m) => m.content)), outputTokens: estimateInputTokens([text]) },
      ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
    };
  }
}

/** A chat message as OpenAI takes it: text, or for a user message with images, text and `image_url` parts (data URLs). */
function openAiMessage(message: ChatMessage, provider: string): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  const images = imagesOf(message, provider);
  if (images.length === 0 || message.role !== 'user') return { role: message.role, content: message.content };
  return {
    role: 'user',
    content: [{ type: 'text', text: message.content }, ...images.map((image) => ({ type: 'image_url' as const, image_url: { url: dataUrlOf(image) } }))],
  };
}
