export { findFreePort } from './free-port.js';
export { natsCredsFileText, newNatsUserKey } from './nats-creds.js';
export { type IssuedCertificate, type TestCertificateAuthority, testCertificateAuthority } from './tls-certificates.js';
export { spawnManaged, waitForOutput, waitForPort, type ManagedProcess } from './process-control.js';
export { startConfiguredNatsServer, startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server.js';
export { type NatsClusterHandle, type NodeStreamState, startNatsCluster } from './nats-cluster.js';
export {
  createDatabase,
  findPostgresBinDir,
  startPostgresServer,
  type PostgresServerHandle,
  type PostgresServerOptions,
} from './postgres-server.js';
export { dockerEngineReachable } from './docker.js';
export { freshDatabase, privateNatsServer, startInfra, testInfra, type RunningInfra, type TestInfra } from './infra.js';
export { type ImageDefaults, imageDefaultsOf, imageNodeOptions, nodeOptionsAfterImage, serviceNodeFlags } from './image-defaults.js';
export { ALL_SERVICES, startPlatformProcesses, type PlatformOptions, type RunningPlatform, type ServiceName } from './platform-processes.js';
export { counting, waitFor } from './waiting.js';
export { decodeExportTraceServiceRequest, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';
