import type {
  MessageData,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
} from '@openpaw/contracts';

/** Injection tokens of the research flow's ports (spec 05). The LLM and clock are the service's (`RESEARCH_LLM`, `RESEARCH_CLOCK`). */
export const FLOW_SETTINGS = Symbol('openpaw.research.flow.settings');
/** Opens sealed per-user keys (`KeyOpener`). */
export const FLOW_KEYS = Symbol('openpaw.research.flow.keys');
/** The blob store reports are shared from (`BlobStore | null`: null when sharing is off). */
export const FLOW_BLOBS = Symbol('openpaw.research.flow.blobs');
export const FLOW_REPLIES = Symbol('openpaw.research.flow.replies');
export const FLOW_CANCELLATIONS = Symbol('openpaw.research.flow.cancellations');
/** `ResearchProviders`: the researcher of each provider, the synthesizers. */
export const FLOW_PROVIDERS = Symbol('openpaw.research.flow.providers');

/** Users' webhooks (`WebhookStore`), the opener of their sealed secrets and the HTTP sender. */
export const FLOW_WEBHOOKS = Symbol('openpaw.research.flow.webhooks');
export const FLOW_WEBHOOK_SECRETS = Symbol('openpaw.research.flow.webhookSecrets');
export const FLOW_WEBHOOK_SENDER = Symbol('openpaw.research.flow.webhookSender');

/** Opens a user's sealed webhook secret (the `SecretSealer` of `@openpaw/providers/keys`); throws if it is not theirs. */
export interface WebhookSecretOpener {
  open(userId: string, sealed: string): string;
}

/** Opens a sealed key (the `UserKeyVault` of `@openpaw/providers`); throws if it is not the user's. */
export interface KeyOpener {
  open(userId: string, provider: 'openai' | 'anthropic' | 'gemini', sealed: string): string;
}

/** Every reply a research-flow command can get: kept before it is published, so a redelivery never calls a provider twice. */
export type FlowReply =
  | { readonly kind: 'leg_completed'; readonly id: string; readonly data: MessageData<typeof ResearchLegCompleted> }
  | { readonly kind: 'leg_failed'; readonly id: string; readonly data: MessageData<typeof ResearchLegFailed> }
  | { readonly kind: 'synthesized'; readonly id: string; readonly data: MessageData<typeof ResearchSynthesized> }
  | { readonly kind: 'synthesis_failed'; readonly id: string; readonly data: MessageData<typeof ResearchSynthesisFailed> }
  | { readonly kind: 'title'; readonly id: string; readonly data: MessageData<typeof ResearchTitleGenerated> };

/** The `research` schema's record of research-flow replies (table `research_flow_replies`), by command id. */
export interface FlowReplyStore {
  find(commandId: string): Promise<FlowReply | undefined>;
  /** Keeps `reply` unless one is kept for the command already; returns the kept one. */
  keep(commandId: string, reply: FlowReply): Promise<FlowReply>;
}
