import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../io.js';
import { FakeGateway } from './fake-gateway.js';

/** The secret the CLI signs its development tokens with in these tests (the fake gateway checks none). */
export const CLI_TEST_SECRET = 'cli-test-secret-cli-test-secret-0123';

/** What a CLI spec works with: the fake gateway, the CLI's I/O bound to it, and its folders. */
export interface CliHarness {
  readonly gateway: FakeGateway;
  /** A fresh I/O for one CLI invocation, with what it printed: `env` adds to (or overrides) the harness's. */
  cli(env?: Record<string, string>): { io: CliIo; out: string[]; err: string[] };
  /** The local blob folder (`OPENPAW_BLOB_DIR`). */
  blobDir(): string;
  /** The CLI's working directory. */
  workDir(): string;
}

/**
 * Starts a fake gateway and two temporary folders for the enclosing `describe` (jest's `beforeAll` and
 * `afterAll`), and answers how to run the CLI against them. Sleeps are capped at 20 ms: the tests follow
 * streams and polls without waiting out the CLI's real back-offs.
 */
export function useCliHarness(): CliHarness {
  const gateway = new FakeGateway();
  let blobDir = '';
  let workDir = '';

  beforeAll(async () => {
    await gateway.start();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-cli-blobs-'));
    workDir = await mkdtemp(join(tmpdir(), 'openpaw-cli-work-'));
  });

  afterAll(async () => {
    await gateway.stop();
    await rm(blobDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  });

  return {
    gateway,
    blobDir: () => blobDir,
    workDir: () => workDir,
    cli(env = {}) {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = {
        env: { OPENPAW_API_URL: gateway.url, OPENPAW_JWT_SECRET: CLI_TEST_SECRET, OPENPAW_BLOB_DIR: blobDir, ...env },
        cwd: workDir,
        stdout: (line) => out.push(line),
        stderr: (line) => err.push(line),
        fetch: (input, init) => fetch(input, init),
        now: () => Date.now(),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20))),
        prompt: () => Promise.resolve(undefined),
        close: () => undefined,
      };
      return { io, out, err };
    },
  };
}

/** The state names printed as `[  t.ts] STATE` lines, in order. */
export const statesIn = (lines: readonly string[]): string[] =>
  lines.flatMap((line) => {
    const match = /^\[\s*\d+\.\ds\] ([A-Z_]+)/.exec(line);
    return match?.[1] === undefined ? [] : [match[1]];
  });
