export type { AfterSettled, BatchHandler, BatchItem, FailedBatchItem, HandlerOutcome, MessageContext, MessageHandler, MessagePublisher } from './ports.js';
export { connectNats, ConnectionState, NATS_SETTING_NAMES, natsAuthOptions, natsConnectionSettingsFromEnv, type ConnectNatsOptions, type NatsConnectionSettings } from './connection.js';
export { isJetStreamUnavailable, jetstreamManagerWhenReady, whenJetStreamAnswers, type WhenJetStreamAnswersOptions } from './jetstream-when-ready.js';
export {
  consumerInfoIfExists,
  ensureConsumer,
  ensureStream,
  laneFilterOf,
  EVENTS_FILTER,
  provisionStreams,
  serviceCommandsDurable,
  serviceCommandsFilter,
  serviceEventsDurable,
  streamDrift,
  streamSpecs,
  type ConsumerSpec,
  type EnsureStreamOptions,
  type ProvisionResult,
  type StreamProvisionReport,
  type StreamSpec,
} from './provisioning.js';
export {
  DEFAULT_STREAM_SETTINGS,
  parseDurationMs,
  parseSize,
  streamProvisionFromEnv,
  streamSettingsFromEnv,
  type StreamLimits,
  type StreamProvisionMode,
  type StreamProvisionOptions,
  type StreamSettings,
  type StreamStorage,
} from './stream-settings.js';
export { CLOUDEVENTS_CONTENT_TYPE, JetStreamPublisher } from './publisher.js';
export { messageCounters, messageCountsSince, readMessageCounts, type MessageCounts } from './message-budget.js';
export {
  DEFAULT_BACKOFF_MS,
  DEFAULT_MAX_DELIVER,
  DLQ_HEADERS,
  NATS_MSG_ID,
  startConsumer,
  type BatchConsumerOptions,
  type ConsumerHandle,
  type ConsumerOptions,
  type MessageConsumerOptions,
} from './consumer.js';
export { DEFAULT_VALIDATED_ENVELOPES, ValidatedEnvelopes } from './validated-envelopes.js';
export { stderrLogger, type MessagingLogger, type MessagingObserver } from './observability.js';
export { activeTraceHeaders, contextFromTraceHeaders, type TraceHeaders } from './trace-context.js';
export { OnMessage } from './nest/on-message.decorator.js';
export { ensureKvBucket, KV_BUCKETS, kvStreamName, openKvBucket, provisionKvBuckets, type KvBucketSpec, type OpenKvBucketOptions } from './kv-buckets.js';
export {
  COMMAND_RECEIPTS_BUCKET,
  KvCommandReceiptStore,
  receiptRecorder,
  type CommandReceipt,
  type CommandReceiptStore,
} from './command-receipts.js';
export {
  MessagingHealth,
  MessagingHost,
  MessagingModule,
  type LaneBacklog,
  type MessagingModuleAsyncOptions,
  type MessagingModuleOptions,
} from './nest/messaging.module.js';
export { MESSAGE_PUBLISHER, NATS_CONNECTION } from './nest/tokens.js';
export { replyMetaFor } from './reply-meta.js';
export { isReplyOf, replyAs, replyTo, type Reply } from './replies/reply.js';
export { answerOnce, type AnswerOnceOptions, answerOnceWith, type KeptReplyStore } from './replies/kept-replies.js';
export { KEPT_REPLIES_TABLE, keptRepliesTableDdl, PgKeptReplyStore, type SqlRunner } from './replies/pg-kept-reply-store.js';
export { publishReplies, type ReplyOrigin } from './replies/publish-replies.js';
export { GroupCommitKeptReplyStore } from './replies/group-commit-kept-reply-store.js';
export { GroupRunner, isPermanentDatabaseError } from './replies/group-commit.js';
export { keptForm, restoredReplies, type KeptForm } from './replies/reply-codec.js';
export {
  deadLetterMatches,
  matchingDeadLetters,
  redriveDeadLetter,
  redriveDeadLetters,
  REDRIVEN_FROM_HEADER,
  subjectMatches,
  type BulkRedriveResult,
  type DeadLetterFilter,
  type RedriveOutcome,
} from './dead-letter-redrive.js';
export { abortOnRunEnded, InFlightAborts, RunEndedError, type AbortOnRunEndedOptions } from './cancellation/index.js';
