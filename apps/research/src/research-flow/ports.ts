/** Injection tokens of the research flow's ports (spec 05). The LLM and clock are the service's (`RESEARCH_LLM`, `RESEARCH_CLOCK`). */
export const FLOW_SETTINGS = Symbol('openpaw.research.flow.settings');
/** Opens sealed per-user keys (`KeyOpener`). */
export const FLOW_KEYS = Symbol('openpaw.research.flow.keys');
/** The blob store reports are shared from (`BlobStore | null`: null when sharing is off). */
export const FLOW_BLOBS = Symbol('openpaw.research.flow.blobs');
/** The research flow's kept replies (`KeptReplyStore` of `@openpaw/messaging`, the schema's `command_replies`). */
export const FLOW_REPLIES = Symbol('openpaw.research.flow.replies');
export const FLOW_CANCELLATIONS = Symbol('openpaw.research.flow.cancellations');
/** `ResearchProviders`: the researcher of each provider, the synthesizers. */
export const FLOW_PROVIDERS = Symbol('openpaw.research.flow.providers');

/** Opens a sealed key (the `UserKeyVault` of `@openpaw/providers`); throws if it is not the user's. */
export interface KeyOpener {
  open(userId: string, provider: 'openai' | 'anthropic' | 'gemini', sealed: string): string;
}
