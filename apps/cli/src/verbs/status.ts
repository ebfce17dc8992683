import type { RunResource } from '../api-client.js';
import { exitOfRunState } from '../exit-codes.js';
import { printSummary } from '../run-summary.js';
import { single, type Verb } from '../verb.js';

/** `openpaw status <runId>`: one look at a run (exit 5 while it runs). */
export const statusVerb: Verb = {
  name: 'status',
  summary: 'show a run (exit 5 while it is still running)',
  usage: ['<runId>'],
  options: {},
  needsApi: true,
  async run({ args, io, out, api }) {
    const client = await api();
    const { body: run } = await client.json<RunResource>(`/runs/${encodeURIComponent(single(args, 'status <runId>'))}`);
    out(`run ${run.runId}: ${run.state}${run.terminal ? '' : ' (running)'}, attempt ${run.attemptNo}, ${run.workflowType}`);
    if (run.terminal) await printSummary(client, run, io, out);
    return { exitCode: exitOfRunState(run.state, run.terminal), result: run };
  },
};
