import type { ParseArgsConfig } from 'node:util';
import type { ApiClient } from './api-client.js';
import type { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

/** Option values as `node:util` `parseArgs` gives them. */
export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

/** What a verb gets: its arguments and options, the io, and (lazily) an authenticated API client. */
export interface VerbContext {
  readonly args: readonly string[];
  readonly options: OptionValues;
  readonly io: CliIo;
  /** `--json`: one JSON document on stdout (see `emit`), progress on stderr. */
  readonly json: boolean;
  /** Progress and human output: stdout, or stderr under `--json`. */
  readonly out: (line: string) => void;
  /** The API client with the credentials of the profile / environment; throws a usage error without any. */
  readonly api: () => Promise<ApiClient>;
  /** `--timeout` in ms (how long to follow a run; default 900 s). */
  readonly timeoutMs: number;
}

/** What a verb answers: its exit code, and the `result` of the `--json` document. */
export interface VerbOutcome {
  readonly exitCode: ExitCode;
  readonly result?: unknown;
}

/**
 * One `openpaw <verb>`. Adding a verb is one file exporting one of these, listed in `verbs/index.ts`:
 * usage, help, completion and dispatch all come from it.
 */
export interface Verb {
  readonly name: string;
  /** One line for `openpaw --help`. */
  readonly summary: string;
  /** The argument part of the usage line(s), e.g. `<runId> [--reason <text>]`. */
  readonly usage: readonly string[];
  /** Its own options (the global ones are added: --json, --timeout, --api-url, --profile, --help). */
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** Whether it talks to the gateway (needs credentials). */
  readonly needsApi: boolean;
  run(context: VerbContext): Promise<VerbOutcome>;
}

/** Bad arguments: answered with the verb's usage and exit code 2. */
export class UsageError extends Error {}

/** The only argument, or a usage error. */
export function single(args: readonly string[], usage: string): string {
  const [only, ...more] = args;
  if (only === undefined || more.length > 0) throw new UsageError(`usage: openpaw ${usage}`);
  return only;
}
