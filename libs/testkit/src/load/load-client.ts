import { SignJWT } from 'jose';

/** How one submitted problem ended, as its user saw it through the public API. */
export type ProblemOutcome =
  | { readonly kind: 'ended'; readonly runId: string; readonly state: string; readonly errorCode?: string; readonly msToResult: number }
  /** Answered 429: admission control refused it, nothing was started. */
  | { readonly kind: 'rejected'; readonly retryAfterSeconds: number | null; readonly reason?: string }
  /** No end seen before the harness gave up. */
  | { readonly kind: 'unfinished'; readonly runId?: string; readonly lastState?: string };

type Json = Record<string, unknown>;

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A dev token as the gateway's HS256 mode verifies it (issuer `openpaw`, audience `openpaw-api`). */
export async function devToken(secret: string, userId: string, tier?: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(tier === undefined ? {} : { tier })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer('openpaw')
    .setAudience('openpaw-api')
    .setIssuedAt(now)
    .setExpirationTime(now + 12 * 3600)
    .sign(new TextEncoder().encode(secret));
}

/**
 * Submits one problem as a client would and follows it to its end: `?wait` long-polls, then the run
 * resource; a gateway that is down (killed, restarting) or answers 5xx is tried again with the same
 * problem (submissions are idempotent), a 429 is the answer (not retried).
 */
export async function driveProblem(gatewayUrl: () => string, token: string, text: string, deadline: number): Promise<ProblemOutcome> {
  const started = performance.now();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let runId: string | undefined;
  let lastState: string | undefined;
  while (Date.now() < deadline) {
    try {
      if (runId === undefined) {
        const response = await fetch(`${gatewayUrl()}/problems?wait=20`, { method: 'POST', headers, body: JSON.stringify({ text }) });
        if (response.status === 429) {
          const body = (await response.json()) as Json;
          const retryAfter = response.headers.get('retry-after');
          return { kind: 'rejected', retryAfterSeconds: retryAfter === null ? null : Number(retryAfter), ...(typeof body['reason'] === 'string' ? { reason: body['reason'] } : {}) };
        }
        if (response.status === 200 || response.status === 202) {
          const body = (await response.json()) as Json;
          runId = String(body['run_id']);
          lastState = String(body['state']);
          if (body['terminal'] === true) return ended(runId, body, started);
          continue;
        }
        await response.body?.cancel();
      } else {
        const response = await fetch(`${gatewayUrl()}/runs/${runId}`, { headers });
        if (response.ok) {
          const body = (await response.json()) as Json;
          lastState = String(body['state']);
          if (body['terminal'] === true) return ended(runId, body, started);
        } else {
          await response.body?.cancel();
        }
      }
    } catch {
      // The gateway is down (killed and restarting): try again shortly.
    }
    await delay(runId === undefined ? 500 : 250);
  }
  return { kind: 'unfinished', ...(runId === undefined ? {} : { runId }), ...(lastState === undefined ? {} : { lastState }) };
}

function ended(runId: string, body: Json, started: number): ProblemOutcome {
  const view = (body['result'] ?? body['view'] ?? {}) as Json;
  const errorCode = typeof view['error_code'] === 'string' ? view['error_code'] : undefined;
  return { kind: 'ended', runId, state: String(body['state']), msToResult: performance.now() - started, ...(errorCode === undefined ? {} : { errorCode }) };
}

/** The i-th distinct new problem: a linear equation the local model solves (unique by its constant). */
export function distinctProblem(i: number, salt: number): string {
  const a = 2 + (i % 7);
  const x = 1 + (i % 11);
  const b = 3 + i + salt * 100_000;
  return `Solve ${a}x + ${b} = ${a * x + b}`;
}
