import type { Provider } from '@nestjs/common';
import { RESEARCH_WEBHOOK_SECRET_PURPOSE } from '@openpaw/contracts';
import { GroupCommitKeptReplyStore } from '@openpaw/messaging';
import { MessageLogContext } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv, InMemoryUserKeyStore, type LlmClient, UserKeyVault } from '@openpaw/providers';
import { SecretSealer } from '@openpaw/providers/keys';
import type { DataSource } from 'typeorm';
import { RESEARCH_DATA_SOURCE } from '../persistence/database.js';
import { preparedSqlRunner } from '@openpaw/persistence';
import { RESEARCH_SCHEMA } from '../config.js';
import { RESEARCH_LLM } from '../ports.js';
import { LegCancellations } from './cancellation/leg-cancellations.js';
import { ResearchEndedSubscription } from './cancellation/research-ended.subscription.js';
import type { ResearchFlowSettings } from './config.js';
import { DeliverResearchWebhookHandler } from './handlers/deliver-research-webhook/deliver-research-webhook.handler.js';
import { ExecuteResearchLegHandler } from './handlers/execute-research-leg/execute-research-leg.handler.js';
import { GenerateResearchTitleHandler } from './handlers/generate-research-title/generate-research-title.handler.js';
import { SetResearchWebhookHandler } from './handlers/set-research-webhook/set-research-webhook.handler.js';
import { SynthesizeResearchHandler } from './handlers/synthesize-research/synthesize-research.handler.js';
import { TestProviderKeyHandler } from './handlers/test-provider-key/test-provider-key.handler.js';
import { ProviderKeyTestConsumer } from './messaging/provider-key-test.consumer.js';
import { ResearchFlowConsumer } from './messaging/research-flow.consumer.js';
import { ResearchWebhookConsumer } from './messaging/research-webhook.consumer.js';
import { ResearchWebhookDeliveries } from './messaging/research-webhook-deliveries.js';
import { PgBackgroundCalls } from './background-calls.js';
import {
  FLOW_BACKGROUND_CALLS,
  FLOW_BLOBS,
  FLOW_CANCELLATIONS,
  FLOW_KEYS,
  FLOW_PROVIDERS,
  FLOW_REPLIES,
  FLOW_SETTINGS,
  FLOW_WEBHOOK_SECRETS,
  FLOW_WEBHOOK_SENDER,
  FLOW_WEBHOOKS,
  type KeyOpener,
  type WebhookSecretOpener,
} from './ports.js';
import { createResearchProviders } from './research-providers.js';
import { ReportSharer } from './share/report-sharer.js';
import { WebhookSender } from './webhooks/webhook-sender.js';
import { PgWebhookStore } from './webhooks/webhook-store.js';

/** What a test (or an embedding process) may supply instead of what is built from env. */
export interface ResearchFlowAdapters {
  readonly keys?: KeyOpener;
  readonly blobs?: BlobStore | null;
}

/**
 * The research flow's providers for the research service's module (spec 05): the consumer of its
 * three commands, their handlers, the kept replies (schema `research`), the key opener
 * (`OPENPAW_KEY_SEALING_PRIVATE_KEY`, the pair of the gateway's public key; `OPENPAW_KEY_ENCRYPTION_KEY` for `v1` texts), the share store and the
 * cancellation of in-flight legs. Uses the service's LLM client (`RESEARCH_LLM`). `providerEnv`: the
 * environment as the service's settings read it at start (the key vault and the blob store are built from it).
 */
export function researchFlowProviders(settings: ResearchFlowSettings, providerEnv: Readonly<Record<string, string | undefined>>, adapters: ResearchFlowAdapters = {}): Provider[] {
  return [
    { provide: FLOW_SETTINGS, useValue: settings },
    {
      provide: FLOW_KEYS,
      useFactory: (): KeyOpener => adapters.keys ?? keyOpenerFromEnv(providerEnv),
    },
    {
      provide: FLOW_BLOBS,
      inject: [MessageLogContext],
      useFactory: async (log: MessageLogContext): Promise<BlobStore | null> =>
        adapters.blobs !== undefined ? adapters.blobs : settings.shareTtlSeconds === 0 ? null : createBlobStoreFromEnv(providerEnv, { logger: log }),
    },
    { provide: FLOW_REPLIES, inject: [RESEARCH_DATA_SOURCE], useFactory: (dataSource: DataSource) => new GroupCommitKeptReplyStore(preparedSqlRunner(dataSource, 'research_flow_replies'), RESEARCH_SCHEMA) },
    { provide: FLOW_CANCELLATIONS, useValue: new LegCancellations() },
    { provide: FLOW_BACKGROUND_CALLS, inject: [RESEARCH_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgBackgroundCalls(dataSource) },
    { provide: FLOW_PROVIDERS, inject: [RESEARCH_LLM], useFactory: (llm: LlmClient) => createResearchProviders(llm, settings) },
    { provide: ReportSharer, inject: [FLOW_BLOBS], useFactory: (blobs: BlobStore | null) => new ReportSharer(blobs, settings.shareTtlSeconds) },
    ExecuteResearchLegHandler,
    SynthesizeResearchHandler,
    GenerateResearchTitleHandler,
    ResearchFlowConsumer,
    ResearchEndedSubscription,
    // Users' webhooks.
    { provide: FLOW_WEBHOOKS, inject: [RESEARCH_DATA_SOURCE], useFactory: (dataSource: DataSource) => new PgWebhookStore(dataSource) },
    { provide: FLOW_WEBHOOK_SECRETS, useFactory: (): WebhookSecretOpener => webhookSecretOpenerFromEnv(providerEnv) },
    { provide: FLOW_WEBHOOK_SENDER, useValue: new WebhookSender(settings.webhook) },
    SetResearchWebhookHandler,
    DeliverResearchWebhookHandler,
    ResearchWebhookConsumer,
    ResearchWebhookDeliveries,
    // Users' tests of their stored keys.
    TestProviderKeyHandler,
    ProviderKeyTestConsumer,
  ];
}

/** Opens webhook secrets (`OPENPAW_KEY_SEALING_PRIVATE_KEY`, or `OPENPAW_KEY_ENCRYPTION_KEY` for `v1`); without either, no delivery can be signed (each is dead-lettered saying so). */
export function webhookSecretOpenerFromEnv(env: Readonly<Record<string, string | undefined>>): WebhookSecretOpener {
  try {
    const sealer = SecretSealer.fromEnv(env, 'open');
    return { open: (userId, sealed) => sealer.open(RESEARCH_WEBHOOK_SECRET_PURPOSE, userId, sealed) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      open: () => {
        throw new Error(`webhook secrets cannot be opened: ${reason}`);
      },
    };
  }
}

/**
 * The vault that opens sealed keys. Without `OPENPAW_KEY_SEALING_PRIVATE_KEY` (or the `v1` symmetric key) no key can be opened: legs of
 * keyed providers fail with `auth` (the local researcher needs none), and the service says so once.
 */
export function keyOpenerFromEnv(env: Readonly<Record<string, string | undefined>>): KeyOpener {
  try {
    return UserKeyVault.fromEnv(env, new InMemoryUserKeyStore(), 'open');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      open: () => {
        throw new Error(`per-user keys cannot be opened: ${reason}`);
      },
    };
  }
}
