import type { RunSummary } from '../api-client.js';
import { EXIT } from '../exit-codes.js';
import { UsageError, type Verb } from '../verb.js';

/**
 * `openpaw runs`: the caller's runs, newest first, one page (`--cursor` for the next), as summaries
 * (`--view full` for every run's view, as `openpaw status` shows one).
 */
export const runsVerb: Verb = {
  name: 'runs',
  summary: 'list your runs, newest first',
  usage: ['[--type <workflow>] [--state <STATE>] [--limit <n>] [--cursor <cursor>] [--view summary|full]'],
  options: { type: { type: 'string' }, state: { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' }, view: { type: 'string' } },
  needsApi: true,
  async run({ args, options, out, api }) {
    if (args.length > 0) throw new UsageError('usage: openpaw runs [--type <workflow>] [--state <STATE>] [--limit <n>] [--cursor <cursor>] [--view summary|full]');
    const query = new URLSearchParams();
    for (const key of ['type', 'state', 'limit', 'cursor', 'view']) {
      const value = options[key];
      if (typeof value === 'string') query.set(key, value);
    }
    const { body } = await (await api()).json<{ items: RunSummary[]; nextCursor?: string }>(`/runs${query.size === 0 ? '' : `?${query.toString()}`}`);
    for (const run of body.items) out(`${run.runId}  ${run.state.padEnd(22)} ${run.workflowType.padEnd(22)} ${run.createdAt ?? ''}`.trimEnd());
    if (body.items.length === 0) out('no runs');
    // The next page is the same list: a cursor alone would page on over every type, state and view.
    if (body.nextCursor !== undefined) {
      const same = [...query.entries()].filter(([key]) => key !== 'cursor').map(([key, value]) => `--${key} ${shellWord(value)}`);
      out(['more: openpaw runs', ...same, `--cursor ${body.nextCursor}`].join(' '));
    }
    return { exitCode: EXIT.succeeded, result: body };
  },
};

/** A value as one shell word, quoted only when it needs to be. */
function shellWord(value: string): string {
  return /^[\w.:,=+-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
