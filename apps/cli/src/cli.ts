import { parseArgs } from 'node:util';
import { ApiClient, ApiError, DEFAULT_API_URL } from './api-client.js';
import { mintDevToken } from './dev-token.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { DEFAULT_FOLLOW_TIMEOUT_SECONDS, GLOBAL_OPTIONS } from './global-options.js';
import type { CliIo } from './io.js';
import { readProfiles } from './profile.js';
import { UsageError, type OptionValues, type Verb } from './verb.js';
import { VERBS, verbNamed } from './verbs/index.js';
import { CLI_VERSION, JSON_OUTPUT_VERSION } from './version.js';

export { EXIT } from './exit-codes.js';

/** `openpaw --help`: every verb's usage lines, from the registry. */
export function usage(verbs: readonly Verb[] = VERBS): string {
  const lines = verbs.flatMap((verb) => verb.usage.map((line, i) => `  openpaw ${i === 0 ? verb.name : ' '.repeat(verb.name.length)} ${line}`));
  const summaries = verbs.map((verb) => `  ${verb.name.padEnd(11)} ${verb.summary}`);
  return `usage:
${lines.join('\n')}
  openpaw --version

commands:
${summaries.join('\n')}

options of every command:
  --json               one JSON document on stdout ({ "version": ${JSON_OUTPUT_VERSION}, "command", "exitCode", "result" | "error" }); progress on stderr
  --timeout <seconds>  how long to follow a run (default ${DEFAULT_FOLLOW_TIMEOUT_SECONDS}); the run goes on, exit 5
  --api-url <url>      the gateway (else OPENPAW_API_URL, the profile's, or ${DEFAULT_API_URL})
  --profile <name>     a profile saved by \`openpaw login\` (else OPENPAW_PROFILE)

  \`solve\`: an existing file is uploaded as an image; an http(s):// argument is a URL; anything else is
  text (quote it, or put it after --, when it starts with a dash).
  \`papers\` asks for a decision at each checkpoint on stdin; q (or the end of input) leaves it waiting.

exit codes: 0 succeeded · 1 failed · 2 usage · 3 API error or gateway unreachable · 4 cancelled · 5 still running

credentials, first found: --profile / OPENPAW_PROFILE; OPENPAW_TOKEN; a dev token minted with
OPENPAW_JWT_SECRET (for OPENPAW_USER, tier OPENPAW_TIER); the current profile of \`openpaw login\`.
OPENPAW_BLOB_DIR: the local blob directory, to print the solution's file path.`;
}

/** The gateway and the bearer token to use, from the named profile, the environment or the current profile. */
async function connection(io: CliIo, options: OptionValues): Promise<{ apiUrl: string; token: string }> {
  const urlGiven = typeof options['api-url'] === 'string' ? options['api-url'] : io.env['OPENPAW_API_URL'];
  const named = typeof options['profile'] === 'string' ? options['profile'] : io.env['OPENPAW_PROFILE'];
  if (named !== undefined) {
    const profile = (await readProfiles(io.env))?.profiles[named];
    if (profile === undefined) throw new UsageError(`no profile "${named}": openpaw login --profile ${named}`);
    return { apiUrl: urlGiven ?? profile.apiUrl, token: profile.token };
  }
  const token = io.env['OPENPAW_TOKEN'];
  if (token !== undefined) return { apiUrl: urlGiven ?? DEFAULT_API_URL, token };
  if (io.env['OPENPAW_JWT_SECRET'] !== undefined) {
    try {
      return { apiUrl: urlGiven ?? DEFAULT_API_URL, token: await mintDevToken(io.env) };
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const file = await readProfiles(io.env);
  const current = file?.profiles[file.current];
  if (current !== undefined) return { apiUrl: urlGiven ?? current.apiUrl, token: current.token };
  throw new UsageError('no credentials: run `openpaw login`, or set OPENPAW_TOKEN (or OPENPAW_JWT_SECRET to mint a local dev token)');
}

function errorOf(error: unknown, apiUrl: string | undefined): { exitCode: ExitCode; message: string; detail?: unknown } {
  if (error instanceof UsageError) return { exitCode: EXIT.usage, message: error.message };
  if (error instanceof ApiError) return { exitCode: EXIT.apiError, message: `error: ${error.message}`, detail: { status: error.status, body: error.body } };
  const cause = (error as Error & { cause?: { message?: string } }).cause?.message;
  return { exitCode: EXIT.apiError, message: `error: cannot reach the API at ${apiUrl ?? '?'}: ${(error as Error).message}${cause === undefined ? '' : ` (${cause})`}` };
}

/** The CLI: parses `argv` (without node and the script), runs the verb, returns the exit code. */
export async function runCli(argv: readonly string[], given: CliIo): Promise<number> {
  // A variable set to nothing (`OPENPAW_API_URL= openpaw ...`) is an unset one, for every setting alike.
  const io: CliIo = { ...given, env: Object.fromEntries(Object.entries(given.env).filter(([, value]) => value !== undefined && value !== '')) };
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V') {
    io.stdout(`openpaw ${CLI_VERSION}`);
    return EXIT.succeeded;
  }
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    io.stdout(usage());
    return first === undefined ? EXIT.usage : EXIT.succeeded;
  }
  const verb = verbNamed(first);
  if (verb === undefined) {
    io.stderr(`unknown command "${first}"\n\n${usage()}`);
    return EXIT.usage;
  }
  let options: OptionValues;
  let args: string[];
  try {
    ({ values: options, positionals: args } = parseArgs({ args: rest, allowPositionals: true, strict: true, options: { ...GLOBAL_OPTIONS, ...verb.options } }));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${usage([verb])}`);
    return EXIT.usage;
  }
  if (options['help'] === true) {
    io.stdout(usage([verb]));
    return EXIT.succeeded;
  }
  const json = options['json'] === true;
  // Under --json, everything a verb prints is progress (stderr); stdout carries the one document.
  const verbIo: CliIo = json ? { ...io, stdout: io.stderr } : io;
  const emit = (document: Record<string, unknown>): void => {
    if (json) io.stdout(JSON.stringify({ version: JSON_OUTPUT_VERSION, command: verb.name, ...document }, null, 2));
  };
  let apiUrl: string | undefined;
  try {
    const timeoutSeconds = typeof options['timeout'] === 'string' ? Number(options['timeout']) : DEFAULT_FOLLOW_TIMEOUT_SECONDS;
    if (!(timeoutSeconds > 0)) throw new UsageError('--timeout must be a positive number of seconds');
    const outcome = await verb.run({
      args,
      options,
      io: verbIo,
      json,
      out: verbIo.stdout,
      timeoutMs: timeoutSeconds * 1000,
      api: async () => {
        const found = await connection(io, options);
        apiUrl = found.apiUrl;
        return new ApiClient(found.apiUrl, found.token, verbIo);
      },
    });
    emit({ exitCode: outcome.exitCode, result: outcome.result ?? null });
    return outcome.exitCode;
  } catch (error) {
    const { exitCode, message, detail } = errorOf(error, apiUrl);
    io.stderr(exitCode === EXIT.usage ? `${message}\n\n${usage([verb])}` : message);
    emit({ exitCode, error: { message, ...(detail === undefined ? {} : { detail }) } });
    return exitCode;
  }
}
