/** How long to wait for a just-started run to reach the gateway's projection (it lags the start by a moment). */
const NOT_YET_PROJECTED_RETRIES = 20;
const NOT_YET_PROJECTED_DELAY_MS = 500;

/**
 * Calls `read` (one GET of the generated client) until it answers, asking again while it is 404 for
 * a few seconds: a run the page was sent to right after starting it may not be projected yet.
 */
export async function readOnceProjected<T>(read: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data?: T; error?: unknown }> {
  for (let attempt = 0; ; attempt++) {
    const answer = await read();
    if (answer.data !== undefined || answer.response.status !== 404 || attempt >= NOT_YET_PROJECTED_RETRIES) return answer;
    await new Promise((resolve) => setTimeout(resolve, NOT_YET_PROJECTED_DELAY_MS));
  }
}

/** How long to wait for a workflow's own resource to catch up with a state the run's events already announced. */
const CATCH_UP_RETRIES = 25;
const CATCH_UP_DELAY_MS = 200;

/**
 * Reads a workflow's resource (`GET /research/{id}`, `GET /paper-searches/{id}`) after the run's
 * event stream announced `state`: its projection may lag the event a moment, and a run waiting at a
 * checkpoint sends no further event, so the page asks again (briefly) until the resource shows it.
 */
export async function readCaughtUp<T extends { readonly state?: string; readonly status?: string }>(
  read: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  state: string,
): Promise<{ data?: T; error?: unknown }> {
  for (let attempt = 0; ; attempt++) {
    const answer = await readOnceProjected(read);
    const shown = answer.data?.state ?? answer.data?.status;
    if (answer.data === undefined || shown === state || attempt >= CATCH_UP_RETRIES) return answer;
    await new Promise((resolve) => setTimeout(resolve, CATCH_UP_DELAY_MS));
  }
}
