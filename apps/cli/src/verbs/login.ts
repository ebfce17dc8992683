import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiClient, DEFAULT_API_URL } from '../api-client.js';
import { EXIT } from '../exit-codes.js';
import { DEFAULT_PROFILE, saveProfile } from '../profile.js';
import { UsageError, type Verb } from '../verb.js';

/**
 * `openpaw login`: checks a token against the gateway and saves it with the gateway's URL as a profile
 * (`profiles.json`, mode 0600), so later commands need no token in the environment. The token is
 * read from `--token-file` or stdin, never from the command line (it would stay in the shell history).
 */
export const loginVerb: Verb = {
  name: 'login',
  summary: 'check a token against the gateway and save it as a profile',
  usage: ['[--api-url <url>] [--profile <name>] [--token-file <file>]   (else the token is read from stdin)'],
  options: { 'token-file': { type: 'string' } },
  needsApi: false,
  async run({ args, options, io, out }) {
    if (args.length > 0) throw new UsageError('usage: openpaw login [--api-url <url>] [--profile <name>] [--token-file <file>]');
    const apiUrl = (typeof options['api-url'] === 'string' ? options['api-url'] : undefined) ?? io.env['OPENPAW_API_URL'] ?? DEFAULT_API_URL;
    const name = (typeof options['profile'] === 'string' ? options['profile'] : undefined) ?? DEFAULT_PROFILE;
    const tokenFile = options['token-file'];
    const token = (typeof tokenFile === 'string' ? await readFile(resolve(io.cwd, tokenFile), 'utf8') : ((await io.prompt('bearer token: ')) ?? '')).trim();
    if (token === '') throw new UsageError('openpaw login: no token given (stdin or --token-file)');
    // One authenticated read: a wrong token or URL is found now, not at the next command.
    await new ApiClient(apiUrl, token, io).json('/runs?limit=1');
    const path = await saveProfile(io.env, name, { apiUrl, token });
    out(`logged in to ${apiUrl} as profile "${name}" (${path})`);
    return { exitCode: EXIT.succeeded, result: { profile: name, apiUrl, path } };
  },
};
