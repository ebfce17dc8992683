import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from './free-port.js';
import { imageNodeOptions, nodeOptionsAfterImage, serviceNodeFlags } from './image-defaults.js';
import { type ManagedProcess, spawnManaged } from './process-control.js';

export const ALL_SERVICES = ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'artifacts', 'research', 'visual-search', 'gateway'] as const;
export type ServiceName = (typeof ALL_SERVICES)[number];

export interface PlatformOptions {
  /** Repository root (holds `dist/`, built by `npm run build`). */
  readonly root: string;
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly services?: readonly ServiceName[];
  /** Env for every service (e.g. provider endpoints), and per service. */
  readonly env?: Readonly<Record<string, string>>;
  readonly serviceEnv?: Partial<Record<ServiceName, Readonly<Record<string, string>>>>;
  /**
   * A test-only entrypoint per service instead of `dist/apps/<service>/src/main.js`, relative to
   * `dist/apps/<service>/src` (e.g. `testing/loopback-main.js`: fetches from 127.0.0.1 allowed).
   */
  readonly entries?: Partial<Record<ServiceName, string>>;
  /** Node options before each service's entry point (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
}

export interface RunningPlatform {
  readonly gatewayUrl: string;
  readonly blobDir: string;
  readonly jwtSecret: string;
  urlOf(service: ServiceName): string;
  /** SIGKILL one service (a crash). */
  kill(service: ServiceName): Promise<void>;
  /**
   * SIGSTOP one service: it keeps its connections but does nothing, so a step it owns stays in flight
   * for as long as a test needs (e.g. to crash it provably mid-step). `thaw` sends SIGCONT.
   */
  freeze(service: ServiceName): void;
  thaw(service: ServiceName): void;
  /** Starts a stopped or killed service again, on the same port, and waits until it is ready. */
  start(service: ServiceName): Promise<void>;
  /**
   * A rollout with changed settings: stops the service (SIGTERM), then starts it with `env` over its
   * settings (`undefined` removes one) and waits until it is ready. Later starts keep the change.
   */
  restartWith(service: ServiceName, env: Readonly<Record<string, string | undefined>>): Promise<void>;
  logs(service: ServiceName): string;
  /** The service's process id while it runs (e.g. to read its memory from /proc). */
  pidOf(service: ServiceName): number | undefined;
  stop(): Promise<void>;
}

/**
 * Every service as its own process from the compiled build, on free ports, against the given NATS and
 * PostgreSQL: what end-to-end tests drive through the gateway, and what they crash with SIGKILL.
 */
export async function startPlatformProcesses(options: PlatformOptions): Promise<RunningPlatform> {
  const services = options.services ?? ALL_SERVICES;
  const entryOf = (service: ServiceName): string => join(options.root, 'dist/apps', service, 'src', options.entries?.[service] ?? 'main.js');
  for (const service of services) {
    const entry = entryOf(service);
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  }
  const blobDir = mkdtempSync(join(tmpdir(), 'openpaw-blobs-'));
  const jwtSecret = 'e2e-secret-e2e-secret-e2e-secret-e2e-secret';
  const ports = new Map<ServiceName, number>();
  for (const service of services) ports.set(service, await findFreePort());
  const processes = new Map<ServiceName, ManagedProcess>();
  const urlOf = (service: ServiceName): string => `http://127.0.0.1:${ports.get(service) ?? 0}`;
  // Services run with the image's Node options (read once), then any the caller adds; each with its
  // container's own Node flags (docker-compose.yml, equal to the manifests'), which win over both.
  const imageOptions = imageNodeOptions(options.root);
  const flags = serviceNodeFlags(options.root);
  const nodeOptionsOf = (service: ServiceName): string =>
    nodeOptionsAfterImage(imageOptions, options.serviceEnv?.[service]?.['NODE_OPTIONS'] ?? options.env?.['NODE_OPTIONS'] ?? process.env['NODE_OPTIONS']);

  /** Settings changed by `restartWith`, per service: over everything else. */
  const changed = new Map<ServiceName, Readonly<Record<string, string | undefined>>>();
  const start = async (service: ServiceName): Promise<void> => {
    const nodeOptions = nodeOptionsOf(service);
    const env: Record<string, string | undefined> = {
      ...process.env,
      OPENPAW_NATS_URL: options.natsUrl,
      OPENPAW_DATABASE_URL: options.databaseUrl,
      OPENPAW_BLOB_DIR: blobDir,
      OPENPAW_JWT_SECRET: jwtSecret,
      OPENPAW_BLOB_SHARE_BASE_URL: `${urlOf('gateway')}/v1/shared`,
      LOG_LEVEL: process.env['OPENPAW_E2E_LOG_LEVEL'] ?? 'warn',
      // A test platform never reaches the internet: the keyless scholarly sources (on by default in the
      // research service and in the coordinator's default sources) are off unless a spec points them
      // at its wire servers through `env`/`serviceEnv`.
      OPENPAW_SCHOLARLY_SOURCES: 'none',
      OPENPAW_PAPER_SEARCH_JSON: JSON.stringify({ defaultSources: ['library'] }),
      ...options.env,
      ...options.serviceEnv?.[service],
      ...changed.get(service),
      ...(nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions }),
      PORT: String(ports.get(service)),
      HOST: '127.0.0.1',
    };
    // A setting `restartWith` removed is absent, not the text "undefined".
    const proc = spawnManaged(process.execPath, [...(options.nodeArgs ?? []), ...(flags.get(service) ?? []), entryOf(service)], { cwd: options.root, env: setOnly(env) });
    processes.set(service, proc);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
        throw new Error(`${service} exited during start:\n${proc.output()}`);
      }
      // The last answer says what it waits for (its startup probe names a failing check), or that nothing listens.
      const probe = await fetch(`${urlOf(service)}/readyz`).then(
        async (r) => ({ ready: r.ok, answer: `${r.status} ${await r.text()}` }),
        (error: unknown) => ({ ready: false, answer: `no answer (${error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)})` }),
      );
      if (probe.ready) return;
      if (Date.now() > deadline) throw new Error(`${service} not ready after 60 s; its /readyz: ${probe.answer}\n${proc.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const stopAll = async (): Promise<void> => {
    await Promise.all([...processes.values()].map((p) => p.stop('SIGTERM', 10_000)));
    rmSync(blobDir, { recursive: true, force: true });
  };

  try {
    // Sequential: each service provisions streams and migrates its schema at start.
    for (const service of services) await start(service);
  } catch (error) {
    await stopAll();
    throw error;
  }

  return {
    gatewayUrl: urlOf('gateway'),
    blobDir,
    jwtSecret,
    urlOf,
    kill: async (service) => processes.get(service)?.stop('SIGKILL'),
    freeze: (service) => {
      processes.get(service)?.child.kill('SIGSTOP');
    },
    thaw: (service) => {
      processes.get(service)?.child.kill('SIGCONT');
    },
    start,
    restartWith: async (service, env) => {
      await processes.get(service)?.stop('SIGTERM', 10_000);
      changed.set(service, { ...changed.get(service), ...env });
      await start(service);
    },
    logs: (service) => processes.get(service)?.output() ?? '',
    pidOf: (service) => processes.get(service)?.child.pid,
    stop: stopAll,
  };
}

/** The environment without the settings that are not set. */
function setOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
