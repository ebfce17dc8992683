import { useCallback, useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage, type ProviderKeys, type ResearchProvider, type ResearchWebhook, type ResearchWebhookRegistered } from '../api/resources.js';

type KeyProvider = ProviderKeys['keys'][number]['provider'];
const KEY_PROVIDERS: readonly KeyProvider[] = ['openai', 'anthropic', 'gemini'];

/** How long the page waits for the report of a test (the research service reports it within moments). */
const TEST_REPORT_WAIT_MS = 30_000;
/** The same wait for a key test, held by the gateway (`POST /research/keys/:provider/test?wait=`). */
const KEY_TEST_WAIT_SECONDS = TEST_REPORT_WAIT_MS / 1000;
/** How long saving a webhook waits for the research service to take it (`PUT /research/webhook?wait=`). */
const WEBHOOK_WAIT_SECONDS = 10;

/**
 * Re-reads (a second apart, at most `TEST_REPORT_WAIT_MS`) until `read` answers something `reported`
 * accepts: a test is not a run, and has no event stream. Undefined when no report came in time.
 */
async function waitForReport<T>(read: () => Promise<T | undefined>, reported: (value: T) => boolean): Promise<T | undefined> {
  const deadline = Date.now() + TEST_REPORT_WAIT_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const current = await read();
    if (current !== undefined && reported(current)) return current;
  }
  return undefined;
}

type KeyTest = NonNullable<ProviderKeys['keys'][number]['lastTest']>;

/** What a key test's outcome tells the user. */
const KEY_TEST_TEXT: Readonly<Record<NonNullable<KeyTest['outcome']>, string>> = {
  ok: 'Works',
  auth: 'Refused: the provider does not accept this key',
  quota: 'Refused for quota or rate (429): check the account’s credit and limits',
  model_unknown: 'The provider does not know the model research uses',
  unreachable: 'The provider did not answer',
  provider_error: 'The provider failed',
};

/** A key's latest test, as the research service reported it. */
function KeyTestResult({ test }: { test: KeyTest | null }) {
  if (test === null) return <span data-key-test="none">Not tested</span>;
  if (test.outcome === null) return <span data-key-test="pending">Testing…</span>;
  return (
    <span data-key-test={test.outcome}>
      <strong>{KEY_TEST_TEXT[test.outcome]}</strong>
      {test.model === null ? '' : ` (${test.model}, ${when(test.testedAt ?? test.requestedAt)})`}
      {test.reason === null ? '' : `: ${test.reason}`}
    </span>
  );
}

/** When something happened, as a person reads it. */
const when = (iso: string): string => new Date(iso).toLocaleString();

/**
 * Spec 05's keys: which providers the user has a key for (never the keys), add or replace one, test
 * one (one minimal call by the research service), and remove one. A research leg of a provider without a key is refused; `local` needs none.
 */
function ProviderKeysSection() {
  const client = useGatewayClient();
  const [keys, setKeys] = useState<ProviderKeys['keys'] | undefined>();
  const [provider, setProvider] = useState<KeyProvider>('openai');
  const [apiKey, setApiKey] = useState('');
  const [status, setStatus] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  const load = useCallback(async (): Promise<void> => {
    const { data, error } = await client.GET('/research/keys');
    if (data !== undefined) setKeys(data.keys);
    else setProblem(errorMessage(error, 'The keys could not be read.'));
  }, [client]);
  useEffect(() => void load(), [load]);

  const save = async (): Promise<void> => {
    setProblem(undefined);
    const { error, response } = await client.PUT('/research/keys/{provider}', { params: { path: { provider } }, body: { apiKey: apiKey.trim() } });
    if (!response.ok) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    setApiKey('');
    setStatus(`The ${provider} key is saved, encrypted; it is never shown again.`);
    await load();
  };

  /** Asks the research service to make one minimal call with the key (the gateway never calls a provider); the gateway answers with its report (`?wait=`). */
  const test = async (tested: KeyProvider): Promise<void> => {
    setProblem(undefined);
    setKeys((current) => current?.map((key) => (key.provider === tested ? { ...key, lastTest: { testId: '', requestedAt: new Date().toISOString(), testedAt: null, outcome: null, model: null, latencyMs: null, reason: null } } : key)));
    const { data, error, response } = await client.POST('/research/keys/{provider}/test', { params: { path: { provider: tested }, query: { wait: KEY_TEST_WAIT_SECONDS } } });
    if (data === undefined) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    await load();
    if (data.lastTest.outcome === null) setProblem(`No report of the ${tested} key test yet: is the research service running? Its outcome will show here once it is reported.`);
  };

  const remove = async (gone: ResearchProvider): Promise<void> => {
    setProblem(undefined);
    const { error, response } = await client.DELETE('/research/keys/{provider}', { params: { path: { provider: gone as KeyProvider } } });
    if (!response.ok) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    setStatus(`The ${gone} key is removed.`);
    await load();
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Model API keys</h2>
      <p class="hint">Research legs of OpenAI, Anthropic or Gemini run on your own key. The gateway stores it encrypted and never shows it again.</p>
      {keys === undefined ? (
        problem === undefined && <p role="status">Loading your keys…</p>
      ) : keys.length === 0 ? (
        <p data-keys="none">No keys yet: only the local researcher can run.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Your keys</caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Saved</th>
              <th scope="col">Last test</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.provider} data-key={key.provider}>
                <td>{key.provider}</td>
                <td>{when(key.updatedAt)}</td>
                <td>
                  <KeyTestResult test={key.lastTest} />
                </td>
                <td class="button-row">
                  <button type="button" class="secondary" disabled={key.lastTest !== null && key.lastTest.outcome === null} onClick={() => void test(key.provider)}>
                    Test the {key.provider} key
                  </button>
                  <button type="button" class="secondary" onClick={() => void remove(key.provider)}>
                    Remove the {key.provider} key
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label for="key-provider">Provider</label>
        <select id="key-provider" value={provider} onChange={(event) => setProvider(event.currentTarget.value as KeyProvider)}>
          {KEY_PROVIDERS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <label for="key-value">API key</label>
        <input id="key-value" type="password" autocomplete="off" minLength={8} required value={apiKey} onInput={(event) => setApiKey(event.currentTarget.value)} />
        <div>
          <button type="submit" disabled={apiKey.trim().length < 8}>
            Save the key
          </button>
        </div>
      </form>
      {status !== undefined && <p role="status">{status}</p>}
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

/** The last delivery attempt, as the research service reported it. */
function LastDelivery({ delivery }: { delivery: ResearchWebhook['lastDelivery'] }) {
  if (delivery === null) return <p data-delivery="none">No delivery yet: the next finished research is sent here.</p>;
  return (
    <p data-delivery={delivery.outcome}>
      Last delivery: {delivery.eventType}, attempt {delivery.attempt}, {when(delivery.attemptedAt)}: <strong>{delivery.outcome}</strong>
      {delivery.reason === null ? '' : ` (${delivery.reason})`}
    </p>
  );
}

/**
 * Spec 05's webhook: every finished research (completed or failed) is POSTed, signed, to the user's
 * URL. Shows the registration and its last delivery attempt; set (the signing secret is shown once),
 * send a test event (through the research service: the gateway never calls out), or remove it.
 */
function WebhookSection() {
  const client = useGatewayClient();
  const [webhook, setWebhook] = useState<ResearchWebhook | null | undefined>();
  const [url, setUrl] = useState('');
  const [registered, setRegistered] = useState<ResearchWebhookRegistered | undefined>();
  const [testing, setTesting] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  const load = useCallback(async (): Promise<void> => {
    const { data, error, response } = await client.GET('/research/webhook');
    if (data !== undefined) setWebhook(data);
    else if (response.status === 404) setWebhook(null);
    else setProblem(errorMessage(error, 'The webhook could not be read.'));
  }, [client]);
  useEffect(() => void load(), [load]);

  const save = async (): Promise<void> => {
    setProblem(undefined);
    // Waits (bounded) until the research service has taken it, so the page can say it is in force.
    const { data, error, response } = await client.PUT('/research/webhook', { params: { query: { wait: WEBHOOK_WAIT_SECONDS } }, body: { url: url.trim() } });
    if (data === undefined) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    setRegistered(data);
    setUrl('');
    await load();
  };

  /** Sends a test event through the research service; re-reads the webhook (a few seconds apart, bounded) until its attempt is reported. */
  const sendTest = async (): Promise<void> => {
    setProblem(undefined);
    const { data, error, response } = await client.POST('/research/webhook/test');
    if (data === undefined) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    setTesting(data.eventId);
    const reported = await waitForReport(async () => (await client.GET('/research/webhook')).data, (current) => current.lastDelivery?.eventId === data.eventId);
    setTesting(undefined);
    if (reported !== undefined) return setWebhook(reported);
    setProblem('No report of the test delivery yet: is the research service running? Its outcome will show here once it is reported.');
  };

  const remove = async (): Promise<void> => {
    setProblem(undefined);
    const { error, response } = await client.DELETE('/research/webhook');
    if (!response.ok) return setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
    setRegistered(undefined);
    await load();
  };

  return (
    <section aria-labelledby="webhook-title">
      <h2 id="webhook-title">Research webhook</h2>
      <p class="hint">Every research of yours that completes or fails is sent to this URL as signed JSON (HMAC-SHA256 over the timestamp and body).</p>
      {webhook === undefined && problem === undefined && <p role="status">Loading the webhook…</p>}
      {webhook === null && <p data-webhook="none">No webhook.</p>}
      {webhook !== undefined && webhook !== null && (
        <div data-webhook="set">
          <p>
            Sending {webhook.events.join(' and ')} to <code>{webhook.url}</code> (set {when(webhook.updatedAt)}).
          </p>
          <LastDelivery delivery={webhook.lastDelivery} />
          {testing !== undefined && <p role="status">Test event sent; waiting for the research service's report of its delivery…</p>}
          <div class="button-row">
            <button type="button" class="secondary" disabled={testing !== undefined} onClick={() => void sendTest()}>
              Send a test delivery
            </button>
            <button type="button" class="secondary" onClick={() => void remove()}>
              Remove the webhook
            </button>
          </div>
        </div>
      )}
      {registered !== undefined && (
        <div role="status">
          <p>
            {registered.active ? 'Webhook set and in force.' : 'Webhook set; it takes effect within moments.'} Its signing secret, shown only now:{' '}
            <code data-secret>{registered.secret}</code>
          </p>
          <p class="hint">
            Check <code>{registered.signature.header}</code> with it: {registered.signature.scheme}.
          </p>
        </div>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label for="webhook-url">{webhook === null || webhook === undefined ? 'Webhook URL' : 'New webhook URL (replaces the one above)'}</label>
        <input id="webhook-url" type="url" required placeholder="https://example.com/openpaw" value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
        <div>
          <button type="submit" disabled={url.trim() === ''}>
            Set the webhook
          </button>
        </div>
      </form>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

/** The research settings: model keys and the webhook. */
export function SettingsPage() {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Research settings</h1>
      <ProviderKeysSection />
      <WebhookSection />
    </section>
  );
}
