import { dockerEngineReachable } from './docker.js';
import { type NatsServerHandle, startNatsServer } from './nats-server.js';
import { createDatabase, startPostgresServer } from './postgres-server.js';

/** What integration tests connect to; written to env by the jest global setup. */
export interface TestInfra {
  readonly natsUrl: string;
  readonly postgresAdminUrl: string;
  readonly runtime: 'local-binaries' | 'testcontainers';
}

export interface RunningInfra extends TestInfra {
  dispose(): Promise<void>;
}

const ENV_NATS = 'OPENPAW_TEST_NATS_URL';
const ENV_PG = 'OPENPAW_TEST_PG_ADMIN_URL';
const ENV_RUNTIME = 'OPENPAW_TEST_RUNTIME';

/** Starts NATS (JetStream) and PostgreSQL: containers where a Docker engine answers, local binaries otherwise. */
export async function startInfra(options: { fsync?: boolean } = {}): Promise<RunningInfra> {
  if (await dockerEngineReachable()) return startWithContainers();
  const [nats, postgres] = await Promise.all([startNatsServer(), startPostgresServer({ fsync: options.fsync ?? false })]);
  return {
    natsUrl: nats.url,
    postgresAdminUrl: postgres.adminUrl,
    runtime: 'local-binaries',
    dispose: async () => {
      await Promise.all([nats.dispose(), postgres.dispose()]);
    },
  };
}

async function startWithContainers(): Promise<RunningInfra> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const nats = await new GenericContainer('nats:2.10')
    .withCommand(['-js'])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  const postgres = await new GenericContainer('postgres:16')
    .withEnvironment({ POSTGRES_USER: 'openpaw', POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withCommand(['postgres', '-c', 'fsync=off', '-c', 'max_connections=300'])
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  return {
    natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
    postgresAdminUrl: `postgres://openpaw@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`,
    runtime: 'testcontainers',
    dispose: async () => {
      await Promise.all([nats.stop(), postgres.stop()]);
    },
  };
}

export function exportInfraToEnv(infra: TestInfra): void {
  process.env[ENV_NATS] = infra.natsUrl;
  process.env[ENV_PG] = infra.postgresAdminUrl;
  process.env[ENV_RUNTIME] = infra.runtime;
}

/** The shared infra of this jest run; throws a clear error outside the integration project. */
export function testInfra(): TestInfra {
  const natsUrl = process.env[ENV_NATS];
  const postgresAdminUrl = process.env[ENV_PG];
  const runtime = process.env[ENV_RUNTIME];
  if (natsUrl === undefined || postgresAdminUrl === undefined) {
    throw new Error('test infra not started: run integration specs through the jest "integration" project');
  }
  return { natsUrl, postgresAdminUrl, runtime: runtime === 'testcontainers' ? 'testcontainers' : 'local-binaries' };
}

let databaseCounter = 0;

/** A fresh database on the shared PostgreSQL, named after the suite so failures are easy to inspect. */
export async function freshDatabase(label: string): Promise<string> {
  databaseCounter += 1;
  const unique = `${label}_${process.pid}_${Date.now().toString(36)}_${databaseCounter}`;
  return createDatabase(testInfra().postgresAdminUrl, unique);
}

/**
 * A private nats-server for one suite. JetStream stream names and subjects are frozen constants, so
 * suites that provision them must not share a server; starting one costs a few milliseconds.
 */
export async function privateNatsServer(): Promise<NatsServerHandle> {
  return startNatsServer();
}
