import type { Content, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import { type Clock, systemClock } from '../shared/clock.js';
import { base64Of, imagesOf } from './chat-images.js';
import { ProviderError } from './errors.js';
import type { ChatMessage, ChatModel, ChatModelRequest, ChatModelResponse } from './port.js';
import { providerFailure } from './provider-failure.js';
import { SdkClientCache } from './sdk-clients.js';

const GEMINI_PROVIDER = 'gemini';

export interface GeminiChatModelConfig {
  /** From env (`GEMINI_API_KEY`, or `GOOGLE_API_KEY`); per-user keys can be passed per call instead. */
  readonly apiKey?: string;
  /** `GEMINI_BASE_URL`; the SDK appends `/<apiVersion>/models/<model>:generateContent` (v1 by default in @google/genai 3.x). */
  readonly baseUrl?: string;
  readonly clock?: Clock;
}

/** generateContent of the Gemini API through `@google/genai` (SDK retries off; the resilient client retries). */
export class GeminiChatModel implements ChatModel {
  readonly provider = GEMINI_PROVIDER;
  readonly hasDefaultCredentials: boolean;
  private readonly clock: Clock;
  /** Per model and key; the SDK is loaded on the first call (a service that never calls it never loads it). */
  private readonly clients: SdkClientCache<GoogleGenAI>;

  constructor(private readonly config: GeminiChatModelConfig) {
    this.hasDefaultCredentials = config.apiKey !== undefined;
    this.clock = config.clock ?? systemClock;
    this.clients = new SdkClientCache((apiKey) => this.client(apiKey));
  }

  private async client(apiKey: string): Promise<GoogleGenAI> {
    const genai = await import('@google/genai');
    // No retryOptions: the SDK then makes exactly one request per call.
    return new genai.GoogleGenAI({ apiKey, vertexai: false, ...(this.config.baseUrl !== undefined ? { httpOptions: { baseUrl: this.config.baseUrl } } : {}) });
  }

  async complete(request: ChatModelRequest): Promise<ChatModelResponse> {
    const apiKey = request.apiKey ?? this.config.apiKey;
    if (apiKey === undefined) throw new ProviderError('no_credentials', this.provider, 'no API key configured and none passed for this call');
    const client = await this.clients.client(request.model, apiKey);
    const { systemInstruction, contents } = toGeminiContents(request.messages);
    // The SDK's ApiError keeps the status but not the headers; a fetch wrapper keeps Retry-After.
    let lastResponseHeaders: Headers | undefined;
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      lastResponseHeaders = response.headers;
      return response;
    };
    let response: GenerateContentResponse;
    try {
      response = await client.models.generateContent({
        model: request.model,
        contents,
        config: {
          ...(systemInstruction !== undefined ? { systemInstruction } : {}),
          temperature: request.temperature,
          maxOutputTokens: request.maxTokens,
          abortSignal: request.signal,
          httpOptions: { fetch: recordingFetch },
          ...(request.responseSchema !== undefined ? { responseMimeType: 'application/json', responseJsonSchema: request.responseSchema.schema } : {}),
        },
      });
    } catch (error) {
      throw providerFailure(error, this.provider, request.signal, this.clock.now(), [request.apiKey, this.config.apiKey], lastResponseHeaders);
    }
    const candidate = response.candidates?.[0];
    const text = candidate?.content?.parts?.flatMap((part) => (typeof part.text === 'string' && part.thought !== true ? [part.text] : [])).join('');
    const usage = response.usageMetadata;
    if (text === undefined || usage === undefined) {
      const blocked = response.promptFeedback?.blockReason;
      throw new ProviderError(
        blocked !== undefined ? 'bad_request' : 'malformed_response',
        this.provider,
        blocked !== undefined ? `prompt blocked: ${blocked}` : `response has no candidate text or usage (finishReason=${candidate?.finishReason ?? 'none'})`,
      );
    }
    return {
      text,
      model: response.modelVersion ?? request.model,
      usage: {
        inputTokens: usage.promptTokenCount ?? 0,
        // Thinking tokens are billed as output.
        outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
      },
      ...(candidate?.finishReason !== undefined ? { finishReason: candidate.finishReason } : {}),
    };
  }
}

/** System messages become `systemInstruction`; assistant turns are Gemini's `model` role; a user message's images are `inlineData` parts after its text. */
export function toGeminiContents(messages: readonly ChatMessage[]): { systemInstruction?: string; contents: Content[] } {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const contents: Content[] = messages
    .filter((m) => m.role !== 'system')
    .map((m) => ({
      role: m.role === 'assistant' ? 'model' : 'user',
      parts: [{ text: m.content }, ...imagesOf(m, GEMINI_PROVIDER).map((image) => ({ inlineData: { mimeType: image.mimeType, data: base64Of(image) } }))],
    }));
  return { ...(system.length > 0 ? { systemInstruction: system.join('\n\n') } : {}), contents };
}
