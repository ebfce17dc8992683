/** Injection tokens of the research flow's ports (spec 05). The LLM and clock are the service's (`RESEARCH_LLM`, `RESEARCH_CLOCK`). */
export const FLOW_SETTINGS = Symbol('openpaw.research.flow.settings');
/** Opens sealed per-user keys (`KeyOpener`). */
export const FLOW_KEYS = Symbol('openpaw.research.flow.keys');
/** The blob store reports are shared from (`BlobStore | null`: null when sharing is off). */
export const FLOW_BLOBS = Symbol('openpaw.research.flow.blobs');
/** The research flow's kept replies (`KeptReplyStore` of `@openpaw/messaging`, the schema's `command_replies`). */
export const FLOW_REPLIES = Symbol('openpaw.research.flow.replies');
export const FLOW_CANCELLATIONS = Symbol('openpaw.research.flow.cancellations');
/** `BackgroundCalls`: the provider-side id of each leg run in the provider's background, by command id. */
export const FLOW_BACKGROUND_CALLS = Symbol('openpaw.research.flow.backgroundCalls');
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
