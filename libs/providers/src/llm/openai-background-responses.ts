import type OpenAI from 'openai';
import type { Clock } from '../shared/clock.js';
import { ProviderError } from './errors.js';
import { dataUrlOf, imagesOf } from './chat-images.js';
import type { ChatMessage, ChatModelRequest, ChatModelResponse } from './port.js';
import { providerFailure } from './provider-failure.js';

/** Waits between polls of a background response: from `initialMs`, times `factor`, at most `maxMs`. */
export interface PollBackoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  /** Failed polls in a row (5xx, network) tolerated before the call fails: the response keeps running meanwhile. */
  readonly maxPollFailures: number;
}

export const DEFAULT_POLL_BACKOFF: PollBackoff = { initialMs: 2_000, factor: 1.5, maxMs: 30_000, maxPollFailures: 5 };

/** OpenAI's deep research models answer only through the Responses API, in minutes, with a search tool. */
export const isDeepResearchModel = (model: string): boolean => /deep-research/.test(model);

const RUNNING = new Set(['queued', 'in_progress']);

/**
 * A long ("deep research") call as OpenAI runs it: created in the background (`background: true`),
 * then polled with backoff until it ends, so no HTTP request stays open for the call's minutes. The
 * request's signal bounds the whole call: on abort the response is cancelled (best effort) and the
 * call fails `aborted` (or `timeout`). A failed poll is retried (the response keeps running), so a
 * blip never re-creates, and re-bills, a call that is half done.
 */
export async function completeInBackground(client: OpenAI, request: ChatModelRequest, provider: string, clock: Clock, backoff: PollBackoff, secrets: readonly (string | undefined)[]): Promise<ChatModelResponse> {
  const fail = (error: unknown): Error => providerFailure(error, provider, request.signal, clock.now(), secrets);
  const ledger = request.backgroundCalls;
  // A repeat of a call whose response was created before (a redelivered leg): resume it, never bill another.
  let response = ledger === undefined ? undefined : await resumed(client, await ledger.recall(), request.signal, fail);
  if (response === undefined) {
    response = await created(client, request, provider, fail);
    // Not kept (the store is down): the call goes on, only a repeat of it could not resume it.
    await ledger?.keep(response.id).catch(() => undefined);
  }
  return polled(client, response, request, provider, clock, backoff, fail);
}

/** The kept response, as it stands now; undefined when none was kept or the provider no longer has it. */
async function resumed(client: OpenAI, id: string | undefined, signal: AbortSignal, fail: (error: unknown) => Error): Promise<OpenAI.Responses.Response | undefined> {
  if (id === undefined) return undefined;
  try {
    return await client.responses.retrieve(id, {}, { signal, maxRetries: 0 });
  } catch (error) {
    const failure = fail(error);
    if (failure instanceof ProviderError && failure.kind === 'not_found') return undefined;
    throw failure;
  }
}

async function created(client: OpenAI, request: ChatModelRequest, provider: string, fail: (error: unknown) => Error): Promise<OpenAI.Responses.Response> {
  try {
    return await client.responses.create(
      {
        model: request.model,
        input: request.messages.map((m) => responsesInput(m, provider)),
        background: true,
        max_output_tokens: request.maxTokens,
        ...(isDeepResearchModel(request.model) ? { tools: [{ type: 'web_search_preview' as const }] } : {}),
      },
      { signal: request.signal, maxRetries: 0 },
    );
  } catch (error) {
    throw fail(error);
  }
}

async function polled(
  client: OpenAI,
  first: OpenAI.Responses.Response,
  request: ChatModelRequest,
  provider: string,
  clock: Clock,
  backoff: PollBackoff,
  fail: (error: unknown) => Error,
): Promise<ChatModelResponse> {
  let response = first;
  let delayMs = backoff.initialMs;
  let failures = 0;
  while (RUNNING.has(response.status ?? '')) {
    try {
      await clock.sleep(delayMs, request.signal);
      if (request.signal.aborted) throw request.signal.reason;
    } catch (aborted) {
      await client.responses.cancel(response.id, { maxRetries: 0, timeout: 10_000 }).catch(() => undefined);
      throw fail(aborted);
    }
    delayMs = Math.min(backoff.maxMs, Math.round(delayMs * backoff.factor));
    try {
      response = await client.responses.retrieve(response.id, {}, { signal: request.signal, maxRetries: 0 });
      failures = 0;
    } catch (error) {
      const failure = fail(error);
      const transient = failure instanceof ProviderError && (failure.kind === 'server_error' || failure.kind === 'network' || failure.kind === 'rate_limited' || failure.kind === 'timeout');
      failures += 1;
      if (!transient || request.signal.aborted || failures > backoff.maxPollFailures) {
        if (request.signal.aborted) await client.responses.cancel(response.id, { maxRetries: 0, timeout: 10_000 }).catch(() => undefined);
        throw failure;
      }
    }
  }
  switch (response.status) {
    case 'completed':
    case 'incomplete':
      break;
    case 'failed':
      throw new ProviderError(response.error?.code === 'server_error' ? 'server_error' : 'bad_request', provider, `background response ${response.id} failed: ${response.error?.message ?? 'no reason given'}`);
    default:
      throw new ProviderError('server_error', provider, `background response ${response.id} ended ${response.status ?? 'without a status'}`);
  }
  const text = (response.output ?? [])
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
  if (text === '') throw new ProviderError('malformed_response', provider, `background response ${response.id} has no text output`);
  return {
    text,
    model: response.model,
    usage: { inputTokens: response.usage?.input_tokens ?? 0, outputTokens: response.usage?.output_tokens ?? 0 },
    ...(response.status === 'incomplete' ? { finishReason: response.incomplete_details?.reason ?? 'incomplete' } : {}),
  };
}

/** A chat message as the Responses API takes it: text, or for a user message with images, `input_text` and `input_image` parts. */
function responsesInput(message: ChatMessage, provider: string): OpenAI.Responses.EasyInputMessage {
  const images = imagesOf(message, provider);
  if (images.length === 0 || message.role !== 'user') return { role: message.role, content: message.content };
  return {
    role: 'user',
    content: [{ type: 'input_text', text: message.content }, ...images.map((image) => ({ type: 'input_image' as const, image_url: dataUrlOf(image), detail: 'auto' as const }))],
  };
}
