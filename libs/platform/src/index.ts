export {
  bootstrapService,
  createServiceApp,
  startService,
  startServiceFromSettings,
  type BootstrapOptions,
  type RunningService,
  type ServiceAppOptions,
  type ServiceDefinition,
  type ServiceFromSettingsOptions,
} from './bootstrap.js';
export { configurationProblem, redactSecrets } from './configuration-problem.js';
export { databaseStartupCheck, natsStartupCheck, settingCheck, type StartupCheck, type StartupProblem } from './startup-checks.js';
export { PlatformModule, type PlatformOptions } from './platform.module.js';
export {
  databaseReadiness,
  HealthController,
  MetricsController,
  natsReadiness,
  PUBLIC_ROUTE,
  PublicRoute,
  type ReadinessCheck,
  ReadinessRegistry,
  SERVICE_NAME,
} from './health.js';
export { following as followingCounter, MESSAGE_COUNTER_METRICS, registerMessageCounters } from './message-counters.js';
export { type IdleRunsReading, METRIC_NAMES, PlatformMetrics, type LaneBacklogReading } from './metrics.js';
export { MetricsMessagingObserver, type MessagingObserver } from './messaging-observer.js';
export { loggerParams, MessageLogContext, messageLogBindings, messageLogger, PROBE_PATHS, type MessageLogSource } from './logging.js';
export {
  currentSpanContext,
  currentSpanId,
  currentTraceId,
  currentTraceparent,
  formatTraceparent,
  installTracing,
  parseTraceparent,
  platformTracer,
  shutdownTracing,
  startSpanContext,
  withTraceparent,
  type TracingOptions,
} from './tracing.js';
export { ServiceMessagingModule, type ServiceMessagingOptions } from './messaging.js';
export {
  DEFAULT_NATS_URL,
  type LaneSettings,
  laneSettingsFromEnv,
  natsUrlFromEnv,
  type ServiceMessagingSettings,
  serviceMessagingSettingsFromEnv,
  serviceStreamProvisionFromEnv,
} from './messaging-settings.js';
export { parseJsonSetting, validSetting } from './json-setting.js';
export { httpServerMetrics, httpServerSpans } from './http-spans.js';
export { InternalHttpServer, internalPortFromEnv, type InternalResponse } from './internal-server.js';
export { type DatabaseSettings, serviceDatabaseProviders, type ServiceDatabaseOptions } from './service-database.js';
export { adapterProvider } from './adapter-provider.js';
