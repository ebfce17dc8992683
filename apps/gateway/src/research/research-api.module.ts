import type { Provider, Type } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../projection/database.js';
import { ResearchRuns } from './handlers/research-runs.js';
import { ProviderKeys } from './keys/provider-keys.js';
import { ProviderKeyTestReplies } from './keys/provider-key-test-replies.js';
import { ProviderKeyTestsConsumer } from './keys/provider-key-tests.consumer.js';
import { ProviderKeysController } from './provider-keys.controller.js';
import { ResearchController } from './research.controller.js';
import { ResearchWebhookAttemptsConsumer } from './webhook/research-webhook-attempts.consumer.js';
import { ResearchWebhookController } from './webhook/research-webhook.controller.js';
import { ResearchWebhookRegistrations } from './webhook/research-webhook-registrations.js';
import { ResearchWebhookSetReplies } from './webhook/research-webhook-set-replies.js';

/**
 * Spec 05 in the gateway: `POST /research/draft`, `POST /research`, `GET /research/:id`,
 * `POST /research/:id/confirm`, `POST /research/:id/retry`, the caller's provider keys
 * (`/research/keys`, with the tests the research service reports) and webhook (`/research/webhook`, with the delivery attempts the research
 * service reports). Registered in `GatewayModule` itself (not a module of its own), because
 * starting a research goes through the gateway's one `AdmissionControl` (its token buckets are per
 * process); builds on `RunsModule` (projection, run submission, live events, config).
 */
export const RESEARCH_API_CONTROLLERS: readonly Type[] = [ProviderKeysController, ResearchWebhookController, ResearchController];
export const RESEARCH_API_PROVIDERS: readonly Provider[] = [
  ResearchRuns,
  ProviderKeys,
  { provide: ResearchWebhookRegistrations, inject: [GATEWAY_DATA_SOURCE], useFactory: (dataSource: DataSource) => new ResearchWebhookRegistrations(dataSource) },
  ResearchWebhookAttemptsConsumer,
  ProviderKeyTestsConsumer,
  ProviderKeyTestReplies,
  ResearchWebhookSetReplies,
];
