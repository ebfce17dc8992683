import { EXIT } from '../exit-codes.js';
import { single, type Verb } from '../verb.js';

/** `openpaw cancel <runId>`: asks the run to stop (exit 1 when the workflow refuses at this state). */
export const cancelVerb: Verb = {
  name: 'cancel',
  summary: 'cancel a run',
  usage: ['<runId> [--reason <text>]'],
  options: { reason: { type: 'string' } },
  needsApi: true,
  async run({ args, options, io, out, api }) {
    const runId = single(args, 'cancel <runId>');
    const reason = options['reason'];
    const { status, body } = await (await api()).post<{ status?: string; state?: string; reason?: string; detail?: string }>(
      `/runs/${encodeURIComponent(runId)}/cancel`,
      typeof reason === 'string' ? { reason } : {},
      [409],
    );
    if (status === 409) {
      io.stderr(`cancel refused (${body.reason ?? 'refused'}): ${body.detail ?? ''}`.trimEnd());
      return { exitCode: EXIT.failed, result: body };
    }
    out(body.status === 'cancelled' ? `cancelled: run ${runId} is ${body.state}` : `cancel requested; run ${runId} is still ${body.state}`);
    return { exitCode: EXIT.succeeded, result: body };
  },
};
