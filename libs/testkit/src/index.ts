export * from './three-step-saga.js';
export * from './three-step-worker.js';
export { devToken, distinctProblem, driveProblem, type ProblemOutcome } from './load/load-client.js';
export { formatLoadReport } from './load/format-report.js';
export { percentile, runLoad, type LoadOptions, type LoadReport } from './load/load-harness.js';
export type { PlatformFacts } from './load/platform-facts.js';
export { type LlmWireServer, startAnthropicWireServer, startOpenAiWireServer, type WireAnswer, type WireRequest } from './llm-wire-servers.js';
export { InMemoryKeptReplyStore } from './in-memory-kept-reply-store.js';
export * from './problem-images.js';
