import { randomUUID } from 'node:crypto';
import { ApiError, type ApiClient } from '../api-client.js';
import { EXIT, exitOfRunState } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { UsageError, type Verb } from '../verb.js';

/** What `POST /visual-degrees` and `GET /visual-degrees/{id}` answer (the fields the verb reads). */
interface DegreesRun {
  readonly runId: string;
  readonly state: string;
  readonly terminal: boolean;
  readonly view?: Record<string, unknown>;
}

/** One spec 03 stream event, as the gateway sends it (`event:` its type, `data:` its JSON). */
interface StreamEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

const TERMINAL_EVENTS = new Set(['final', 'no_path', 'error', 'cancelled']);

/** `final`'s budgets spent, as a line ("" when the event does not carry them). */
function spentLine(data: Record<string, unknown>): string {
  const budgets = data['budgets'] as Record<string, number> | undefined;
  const used = data['used'] as Record<string, number> | undefined;
  if (budgets === undefined || used === undefined) return '';
  const of = (spent: string, max: string): string => `${Number(used[spent] ?? 0)}/${Number(budgets[max] ?? 0)}`;
  return `\n  spent ${of('searchCalls', 'maxSearchCalls')} searches, ${of('recognitionCalls', 'maxRecognitionCalls')} recognitions, ${of('llmCalls', 'maxLlmCalls')} LLM calls`;
}

/** The line a person reads for one stream event. */
export function describeEvent({ type, data }: StreamEvent): string {
  const str = (key: string): string => {
    const value = data[key];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  };
  const pct = (key: string): string => `${Number(data[key] ?? 0).toFixed(1)}%`;
  switch (type) {
    case 'status':
      return `… ${str('message')}`;
    case 'evidence':
      // Partial evidence (spec 03 S1) is not a link: photos of one side without the other at the threshold.
      if (data['partial'] === true) {
        const seen = (key: string): string => (typeof data[key] === 'number' ? pct(key) : 'not recognised');
        return `· not a link: ${str('images')} photo(s) without both (best: ${str('from')} ${seen('confidenceFrom')}, ${str('to')} ${seen('confidenceTo')})\n    ${str('imageUrl')}`;
      }
      return `✓ ${str('from')} — ${str('to')}  ${pct('edgeConf')} (${str('from')} ${pct('confidenceFrom')}, ${str('to')} ${pct('confidenceTo')}; ${str('images')} image(s))\n    ${str('imageUrl')}${data['sourcePageUrl'] ? `\n    from ${str('sourcePageUrl')}` : ''}`;
    case 'path_update': {
      const path = (data['path'] as string[] | undefined) ?? [];
      const reverse = (data['reversePath'] as string[] | undefined) ?? [];
      return `→ ${path.join(' → ')}${reverse.length > 1 ? `   …   ${[...reverse].reverse().join(' → ')}` : ''}`;
    }
    case 'final': {
      const path = (data['path'] as string[] | undefined) ?? [];
      const map = (data['confidenceMap'] as { bottleneck?: number; cumulative?: number } | undefined) ?? {};
      const world = (data['world'] as { description?: string } | undefined)?.description;
      return `Found ${path.length - 1} degree(s)${world === undefined ? '' : ` in the ${world}`}: ${path.join(' → ')}\n  weakest edge ${Number(map.bottleneck ?? 0).toFixed(1)}%, whole chain ${(Number(map.cumulative ?? 0) * 100).toFixed(1)}%${spentLine(data)}`;
    }
    case 'no_path': {
      const known = Array.isArray(data['knownNames']) ? `\n  names it knows: ${(data['knownNames'] as unknown[]).map(String).join(', ')}` : '';
      return `No path: ${str('message')} (${str('reason')})${known}`;
    }
    case 'error':
      return `Error: ${str('message')} (${str('reason') || str('code')})`;
    case 'cancelled':
      return `Cancelled: ${str('message')}`;
    default:
      return `${type}: ${JSON.stringify(data)}`;
  }
}

/**
 * Follows a run's spec 03 stream (`GET /visual-degrees/{id}/events`) to its terminal event, printing
 * each event as it comes; resumes with `Last-Event-ID` when the stream drops, and waits while the
 * gateway does not know the run yet. Answers the events seen, or undefined when `timeoutMs` passed.
 */
async function followDegrees(api: ApiClient, runId: string, timeoutMs: number, io: CliIo, print: (line: string) => void): Promise<StreamEvent[] | undefined> {
  const deadline = io.now() + timeoutMs;
  const seen: StreamEvent[] = [];
  let lastEventId: string | undefined;
  let backoffMs = 200;
  while (io.now() < deadline) {
    try {
      for await (const message of api.events(`/visual-degrees/${encodeURIComponent(runId)}/events`, lastEventId, AbortSignal.timeout(Math.max(1, deadline - io.now())))) {
        if (message.id !== undefined) lastEventId = message.id;
        if (message.event === undefined) continue;
        const event = { type: message.event, data: JSON.parse(message.data) as Record<string, unknown> };
        seen.push(event);
        print(describeEvent(event));
        backoffMs = 200;
        if (TERMINAL_EVENTS.has(event.type)) return seen;
      }
      // The stream ended without a terminal event: the run may have been cancelled.
      const run = await api.json<DegreesRun>(`/visual-degrees/${encodeURIComponent(runId)}`);
      if (run.body.terminal) return [...seen, { type: run.body.state === 'CANCELLED' ? 'cancelled' : 'ended', data: { state: run.body.state } }];
    } catch (error) {
      if (error instanceof ApiError && error.status !== 404) throw error;
    }
    await io.sleep(backoffMs);
    backoffMs = Math.min(backoffMs * 2, 2000);
  }
  return undefined;
}

/** `openpaw degrees`: a visual-degrees run (spec 03), its evidence streamed live. */
export const degreesVerb: Verb = {
  name: 'degrees',
  summary: 'find a chain of photos linking two people, streaming the evidence live',
  usage: ['"<from>" "<to>" [--max-hops <1-6>] [--one-sided] [--no-wait]'],
  options: {
    'max-hops': { type: 'string' },
    'one-sided': { type: 'boolean' },
    'no-wait': { type: 'boolean' },
  },
  needsApi: true,
  async run({ args, options, io, api, out, timeoutMs }) {
    const [from, to, ...more] = args.map((a) => a.trim());
    if (from === undefined || to === undefined || from === '' || to === '' || more.length > 0) throw new UsageError('usage: openpaw degrees "<from>" "<to>" [--max-hops <1-6>]');
    const rawHops = options['max-hops'];
    const maxHops = typeof rawHops === 'string' ? Number(rawHops) : undefined;
    if (maxHops !== undefined && !(Number.isInteger(maxHops) && maxHops >= 1 && maxHops <= 6)) throw new UsageError('--max-hops must be a whole number from 1 to 6');
    const client = await api();
    const body = {
      from,
      to,
      options: { ...(maxHops === undefined ? {} : { maxHops }), ...(options['one-sided'] === true ? { strategy: 'one_sided' } : {}) },
    };
    const started = await client.json<DegreesRun>('/visual-degrees', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(body),
    });
    const runId = started.body.runId;
    out(`run ${runId}: ${from} → ${to}`);
    if (options['no-wait'] === true) return { exitCode: EXIT.stillRunning, result: { runId, state: started.body.state } };
    const events = await followDegrees(client, runId, timeoutMs, io, out);
    if (events === undefined) {
      io.stderr(`still running after ${timeoutMs / 1000} s`);
      return { exitCode: EXIT.stillRunning, result: { runId } };
    }
    const last = events.at(-1);
    const exitCode = last?.type === 'final' ? EXIT.succeeded : last?.type === 'cancelled' ? EXIT.cancelled : last?.type === 'ended' ? exitOfRunState(String(last.data['state']), true) : EXIT.failed;
    return { exitCode, result: { runId, outcome: last?.type ?? null, ...(last === undefined ? {} : { [last.type]: last.data }) } };
  },
};
