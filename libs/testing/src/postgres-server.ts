import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findFreePort } from './free-port.js';
import { type ManagedProcess, spawnManaged, waitForPort } from './process-control.js';

export interface PostgresServerHandle {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** URL of the maintenance database (`postgres`). */
  readonly adminUrl: string;
  urlFor(database: string): string;
  /**
   * An immediate stop (SIGQUIT: no checkpoint, crash recovery on the next start), then, after
   * `downMs`, a start on the same port and data directory (fault tests).
   */
  crashAndRestart(downMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

export interface PostgresServerOptions {
  /** Durability costs fsyncs; tests turn it off, benchmarks keep it on to measure honestly. */
  readonly fsync?: boolean;
  readonly port?: number;
  readonly dataDir?: string;
  /**
   * Roles other than the cluster's owner (`openpaw`, still trusted) log in over TCP with a password
   * (scram-sha-256), so a wrong one is refused as in production. Default: every role trusted.
   */
  readonly passwordAuth?: boolean;
  /** More server settings (`-c name=value`), e.g. a bench's `shared_preload_libraries=pg_stat_statements`. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** pg_hba.conf for `passwordAuth`: the owner trusted (the harness administers with it), every other role by password. */
const PASSWORD_HBA = ['local all all trust', 'host all openpaw 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 scram-sha-256', ''].join('\n');

/** Locates initdb/postgres: PG_BIN, else Debian's versioned lib directory (newest), else PATH. */
export function findPostgresBinDir(): string | undefined {
  const fromEnv = process.env['PG_BIN'];
  if (fromEnv !== undefined && existsSync(join(fromEnv, 'postgres'))) return fromEnv;
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((v) => existsSync(join(debianRoot, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(debianRoot, versions[0], 'bin');
  }
  return undefined;
}

interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** initdb refuses to run as root, so as root the server runs as the `postgres` system user. */
function runAsIdentity(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** A real PostgreSQL cluster in a temporary data dir, listening on 127.0.0.1 on a free port. */
export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServerHandle> {
  const binDir = findPostgresBinDir();
  const bin = (name: string): string => (binDir === undefined ? name : join(binDir, name));
  const identity = runAsIdentity();
  const ownsData = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'openpaw-pg-'));
  if (identity.uid !== undefined && identity.gid !== undefined) chownSync(dataDir, identity.uid, identity.gid);
  const user = 'openpaw';
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    execFileSync(bin('initdb'), ['-D', dataDir, '-U', user, '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C'], {
      ...identity,
      stdio: 'pipe',
    });
    if (options.passwordAuth === true) writeFileSync(join(dataDir, 'pg_hba.conf'), PASSWORD_HBA);
  }
  const port = options.port ?? (await findFreePort());
  const fsync = options.fsync ?? false ? 'on' : 'off';
  const launch = (): ManagedProcess =>
    spawnManaged(
    bin('postgres'),
    [
      '-D', dataDir,
      '-p', String(port),
      '-k', dataDir,
      '-c', 'listen_addresses=127.0.0.1',
      '-c', `fsync=${fsync}`,
      '-c', `synchronous_commit=${fsync}`,
      '-c', `full_page_writes=${fsync}`,
      '-c', 'max_connections=300',
      '-c', 'shared_buffers=256MB',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    { ...identity },
  );
  let proc = launch();
  await waitForPort('127.0.0.1', port, proc);
  const host = '127.0.0.1';
  const urlFor = (database: string): string => `postgres://${user}@${host}:${port}/${database}`;
  await waitUntilAcceptingQueries(urlFor('postgres'));
  return {
    host,
    port,
    user,
    adminUrl: urlFor('postgres'),
    urlFor,
    crashAndRestart: async (downMs = 1_000) => {
      await proc.stop('SIGQUIT');
      await new Promise((r) => setTimeout(r, downMs));
      proc = launch();
      await waitForPort('127.0.0.1', port, proc);
    },
    dispose: async () => {
      // SIGINT is PostgreSQL's "fast shutdown".
      await proc.stop('SIGINT');
      if (ownsData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function waitUntilAcceptingQueries(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Creates a fresh, empty database on the shared cluster and returns its URL. */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const safe = name.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 50);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database "${safe}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${safe}`;
  return url.toString();
}
