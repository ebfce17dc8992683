import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';

let registered = false;

/**
 * CLIENT spans for what a service calls out to: PostgreSQL queries (`pg`, under TypeORM) with the
 * `db.system.name` / `db.namespace` / `db.query.text` semantic attributes, and outgoing HTTP of
 * `fetch` (the provider clients: OpenAI-compatible, Anthropic, Gemini, SerpApi, scholarly sources),
 * with `http.request.method`, `url.full`, `http.response.status_code`; the W3C context travels on
 * the request.
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
    instrumentations: [new PgInstrumentation({ requireParentSpan: true }), new UndiciInstrumentation({ requireParentforSpans: true })],
  });
}
