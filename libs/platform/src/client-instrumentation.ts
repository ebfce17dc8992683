import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { type UndiciRequest, UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { installHttpClientSpans, redactedUrlAttributes } from './http-client-spans.js';

let registered = false;

/**
 * CLIENT spans for what a service calls out to: PostgreSQL queries (`pg`, under TypeORM) with the
 * `db.system.name` / `db.namespace` / `db.query.text` semantic attributes, and outgoing HTTP of
 * `fetch` (the provider clients: OpenAI-compatible, Anthropic, Gemini, SerpApi, scholarly sources,
 * GCS, Qdrant) and of `node:http` (the AWS SDK), with `http.request.method`, `url.full` (query values
 * redacted: provider keys travel there), `http.response.status_code`; the W3C context travels on the
 * request.
 *
 * Why this works in our ESM processes without an ESM loader hook (`--import` with
 * import-in-the-middle): TypeORM is CommonJS and loads `pg` lazily, with `require`, when a DataSource
 * is created (after `installTracing`), so the require hook patches it; `fetch` is observed through
 * undici's diagnostics channels, which need no patching at all.
 *
 * Only spans with a parent: the relay's, the timer loop's and the pool's housekeeping queries would
 * otherwise each start a trace of their own, which says nothing and costs an export per poll.
 */
export function installClientInstrumentation(): void {
  if (registered) return;
  registered = true;
  registerInstrumentations({
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({
        requireParentforSpans: true,
        // Applied over the instrumentation's own url.full / url.query, which keep the query string as sent.
        startSpanHook: (request: UndiciRequest) => redactedUrlAttributes(new URL(request.path, request.origin)),
      }),
    ],
  });
  installHttpClientSpans();
}
