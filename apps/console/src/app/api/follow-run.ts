import type { GatewayClient } from './client.js';
import { readEventStream } from './event-stream.js';
import type { Run } from './resources.js';

/**
 * Follows a run's server-sent events (`GET /runs/{id}/events`, through the generated client) and
 * calls `onRun` with each state; returns when the gateway ends the stream (after a terminal state)
 * or `signal` aborts.
 */
export async function followRun(client: GatewayClient, runId: string, onRun: (run: Run) => void, signal: AbortSignal): Promise<void> {
  const { data: body, error } = await client.GET('/runs/{id}/events', {
    params: { path: { id: runId } },
    parseAs: 'stream',
    signal,
  });
  if (error !== undefined || body === undefined || body === null) throw new Error(`could not follow the run (${JSON.stringify(error)})`);
  await readEventStream(body, (event) => {
    if (event.event === 'state') onRun(JSON.parse(event.data) as Run);
  });
}
