import type { ApiClient } from '../api-client.js';
import { EXIT } from '../exit-codes.js';
import { UsageError, type Verb, type VerbContext, type VerbOutcome } from '../verb.js';

const PROVIDERS = ['openai', 'anthropic', 'gemini'] as const;
type Provider = (typeof PROVIDERS)[number];

/** A key's latest test as `GET /research/keys` answers it (`outcome` null until the research service reports). */
interface KeyTest {
  readonly testId: string;
  readonly requestedAt: string;
  readonly testedAt: string | null;
  readonly outcome: 'ok' | 'auth' | 'quota' | 'model_unknown' | 'unreachable' | 'provider_error' | null;
  readonly model: string | null;
  readonly latencyMs: number | null;
  readonly reason: string | null;
}

interface ListedKey {
  readonly provider: Provider;
  readonly updatedAt: string;
  readonly lastTest: KeyTest | null;
}

/** What each test outcome tells the user to do. */
const OUTCOME_TEXT: Readonly<Record<NonNullable<KeyTest['outcome']>, string>> = {
  ok: 'works',
  auth: 'refused: the provider does not accept this key (store it again with `openpaw keys set`)',
  quota: 'refused for quota or rate (429): check the account’s credit and limits',
  model_unknown: 'the provider does not know the model research uses',
  unreachable: 'the provider did not answer',
  provider_error: 'the provider failed',
};

/** How long `keys test` waits for the research service's report: the gateway holds the request that long (`?wait=`; a test is not a run, it has no event stream). */
const TEST_WAIT_SECONDS = 30;

const USAGE = ['[list]', 'set <openai|anthropic|gemini>   (the key is read from stdin, never from the command line)', 'remove <openai|anthropic|gemini>', 'test <openai|anthropic|gemini>'];

function providerOf(args: readonly string[], subcommand: string): Provider {
  const [provider, ...more] = args;
  if (provider === undefined || more.length > 0 || !(PROVIDERS as readonly string[]).includes(provider)) {
    throw new UsageError(`usage: openpaw keys ${subcommand} <${PROVIDERS.join('|')}>`);
  }
  return provider as Provider;
}

const describeTest = (test: KeyTest | null): string =>
  test === null
    ? 'not tested'
    : test.outcome === null
      ? `test pending since ${test.requestedAt}`
      : `${test.outcome === 'ok' ? 'ok' : test.outcome}: ${OUTCOME_TEXT[test.outcome]}${test.model === null ? '' : ` (${test.model}${test.latencyMs === null ? '' : `, ${(test.latencyMs / 1000).toFixed(1)} s`})`}${test.reason === null ? '' : ` — ${test.reason}`}`;

async function listKeys(api: ApiClient): Promise<ListedKey[]> {
  return (await api.json<{ keys: ListedKey[] }>('/research/keys')).body.keys;
}

async function testKey({ io, out }: VerbContext, api: ApiClient, provider: Provider): Promise<VerbOutcome> {
  out(`testing the ${provider} key (one minimal call by the research service)…`);
  // One request: the gateway answers 200 once the research service reports, 202 if it has not within the wait.
  const tested = await api.post<{ lastTest: KeyTest; error?: string; message?: string }>(`/research/keys/${provider}/test?wait=${TEST_WAIT_SECONDS}`, {}, [404]);
  if (tested.status === 404) {
    io.stderr(`no ${provider} key stored: openpaw keys set ${provider}`);
    return { exitCode: EXIT.failed, result: tested.body };
  }
  const test = tested.body.lastTest;
  if (test.outcome === null) {
    out(`${provider}: no report within ${TEST_WAIT_SECONDS} s; \`openpaw keys\` shows it when it comes`);
    return { exitCode: EXIT.stillRunning, result: { provider, lastTest: test } };
  }
  out(`${provider}: ${describeTest(test)}`);
  return { exitCode: test.outcome === 'ok' ? EXIT.succeeded : EXIT.failed, result: { provider, lastTest: test } };
}

/** `openpaw keys`: the model-provider keys research legs use (stored sealed by the gateway, never shown back), and their tests. */
export const keysVerb: Verb = {
  name: 'keys',
  summary: 'your model-provider keys for research: list, set, remove, test',
  usage: USAGE,
  options: {},
  needsApi: true,
  async run(context) {
    const { args, io, out } = context;
    const [subcommand = 'list', ...rest] = args;
    const api = await context.api();
    switch (subcommand) {
      case 'list': {
        if (rest.length > 0) throw new UsageError('usage: openpaw keys [list]');
        const keys = await listKeys(api);
        if (keys.length === 0) out('no keys stored: openpaw keys set <provider> (reads the key from stdin)');
        for (const key of keys) out(`${key.provider}: stored ${key.updatedAt}; ${describeTest(key.lastTest)}`);
        return { exitCode: EXIT.succeeded, result: { keys } };
      }
      case 'set': {
        const provider = providerOf(rest, 'set');
        const apiKey = (await io.prompt(`${provider} API key: `))?.trim();
        if (apiKey === undefined || apiKey === '') throw new UsageError(`openpaw keys set ${provider}: give the key on stdin (e.g. from a password manager)`);
        await api.json(`/research/keys/${provider}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey }) });
        out(`${provider}: key stored (sealed; it is never shown again). openpaw keys test ${provider} checks it.`);
        return { exitCode: EXIT.succeeded, result: { provider, stored: true } };
      }
      case 'remove': {
        const provider = providerOf(rest, 'remove');
        const removed = await api.json(`/research/keys/${provider}`, { method: 'DELETE' }, [404]);
        out(removed.status === 404 ? `${provider}: no key was stored` : `${provider}: key removed`);
        return { exitCode: EXIT.succeeded, result: { provider, removed: removed.status !== 404 } };
      }
      case 'test':
        return testKey(context, api, providerOf(rest, 'test'));
      default:
        throw new UsageError(`usage: openpaw keys ${USAGE.join('\n       openpaw keys ')}`);
    }
  },
};
