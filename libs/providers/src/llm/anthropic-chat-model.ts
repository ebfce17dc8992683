import type Anthropic from '@anthropic-ai/sdk';
import { type Clock, systemClock } from '../shared/clock.js';
import { base64Of, imagesOf } from './chat-images.js';
import { ProviderError } from './errors.js';
import type { ChatMessage, ChatModel, ChatModelRequest, ChatModelResponse } from './port.js';
import { providerFailure } from './provider-failure.js';
import { SdkClientCache } from './sdk-clients.js';

const ANTHROPIC_PROVIDER = 'anthropic';

export interface AnthropicChatModelConfig {
  /** From env (`ANTHROPIC_API_KEY`); per-user keys can be passed per call instead. */
  readonly apiKey?: string;
  /** `ANTHROPIC_BASE_URL`; the SDK appends `/v1/messages`. */
  readonly baseURL?: string;
  /**
   * Send the schema as `output_config.format` (Anthropic's structured outputs), which only newer
   * models accept. Off by default: the schema goes in the system prompt and the reply is validated
   * (and re-asked once) by the resilient client either way.
   */
  readonly nativeStructuredOutput?: boolean;
  readonly clock?: Clock;
}

/**
 * The Messages API through `@anthropic-ai/sdk` (SDK retries off; the resilient client retries).
 * `temperature` is not sent: the API deprecated it.
 */
export class AnthropicChatModel implements ChatModel {
  readonly provider = ANTHROPIC_PROVIDER;
  readonly hasDefaultCredentials: boolean;
  private readonly clock: Clock;
  /** Per model and key; the SDK is loaded on the first call (a service that never calls it never loads it). */
  private readonly clients: SdkClientCache<Anthropic>;

  constructor(private readonly config: AnthropicChatModelConfig) {
    this.hasDefaultCredentials = config.apiKey !== undefined;
    this.clock = config.clock ?? systemClock;
    this.clients = new SdkClientCache((apiKey) => this.client(apiKey));
  }

  private async client(apiKey: string): Promise<Anthropic> {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    return new Anthropic({
      apiKey,
      authToken: null,
      baseURL: this.config.baseURL ?? 'https://api.anthropic.com',
      maxRetries: 0,
      timeout: 24 * 60 * 60 * 1000, // the attempt's AbortSignal is the deadline
    });
  }

  async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    const apiKey = request.apiKey ?? this.config.apiKey;
    if (apiKey === undefined) throw new ProviderError('no_credentials', this.provider, 'no API key configured and none passed for this call');
    const client = await this.clients.client(request.model, apiKey);
    const { system, messages } = toAnthropicMessages(request.messages);
    let message: Anthropic.Message;
    try {
      message = await client.messages.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          // No temperature: the Messages API deprecated it (newer models reject it with a 400) and
          // @anthropic-ai/sdk 1.x removed it from the request type.
          messages,
          ...(system !== undefined ? { system } : {}),
          ...(request.responseSchema !== undefined && this.config.nativeStructuredOutput === true
            ? { output_config: { format: { type: 'json_schema' as const, schema: { ...request.responseSchema.schema } } } }
            : {}),
        },
        { signal: request.signal, maxRetries: 0 },
      );
    } catch (error) {
      throw providerFailure(error, this.provider, request.signal, this.clock.now(), [request.apiKey, this.config.apiKey]);
    }
    if (!Array.isArray(message.content) || typeof message.usage?.input_tokens !== 'number') {
      throw new ProviderError('malformed_response', this.provider, 'message has no content array or usage');
    }
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const usage = message.usage;
    return {
      text,
      model: typeof message.model === 'string' ? message.model : request.model,
      usage: {
        // Cache writes and reads are billed input tokens too (at other rates; the table prices them as input).
        inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
        outputTokens: usage.output_tokens,
      },
      ...(message.stop_reason ? { finishReason: message.stop_reason } : {}),
    };
  }
}

/**
 * System messages become the `system` parameter; the rest must alternate user/assistant and start
 * with a user turn, so consecutive turns of one role are joined. A user message's images go before
 * its text, as base64 `image` blocks.
 */
export function toAnthropicMessages(input: readonly ChatMessage[]): { system?: string; messages: Anthropic.MessageParam[] } {
  const systemParts: string[] = [];
  const messages: { role: 'user' | 'assistant'; content: string | Anthropic.ContentBlockParam[] }[] = [];
  const blocks = (content: string | Anthropic.ContentBlockParam[]): Anthropic.ContentBlockParam[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  for (const message of input) {
    if (message.role === 'system') {
      systemParts.push(message.content);
      continue;
    }
    const images = imagesOf(message, ANTHROPIC_PROVIDER);
    const content: string | Anthropic.ContentBlockParam[] =
      images.length === 0
        ? message.content
        : [...images.map((image) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type: image.mimeType, data: base64Of(image) } })), { type: 'text', text: message.content }];
    const last = messages.at(-1);
    if (last === undefined || last.role !== message.role) messages.push({ role: message.role, content });
    else if (typeof last.content === 'string' && typeof content === 'string') last.content = `${last.content}\n\n${content}`;
    else last.content = [...blocks(last.content), ...blocks(content)];
  }
  if (messages[0]?.role !== 'user') messages.unshift({ role: 'user', content: '(continue)' });
  return { ...(systemParts.length > 0 ? { system: systemParts.join('\n\n') } : {}), messages };
}
