/**
 * A person's takedown from visual degrees: `node dist/tools/visual-takedown.js <celebrityId> --reason
 * <why> --by <who> [--name <name>]` (or `POST /ops/visual-degrees/takedowns` on the gateway, which sends the
 * same command to the service), with visual-search's environment (OPENPAW_NATS_URL, the blob store's,
 * the recogniser's: the id is that recogniser's). Records the takedown (no step recognises, pictures or
 * verifies the person again; every replica within 30 s), purges their pairs from the shared evidence
 * cache and deletes every stored photo showing them, then prints one JSON line with what it removed.
 * Run it again after 30 s to remove what a step in flight may have kept meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { TakeDownVisualPerson } from '@openpaw/contracts';
import { createVisualSearchHandlers, visualSearchSettingsFromEnv } from '../apps/visual-search/src/public-api.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { reason: { type: 'string' }, by: { type: 'string' }, name: { type: 'string' } } });
  const [celebrityId] = positionals;
  if (celebrityId === undefined || positionals.length !== 1 || values.reason === undefined || values.by === undefined) {
    throw new Error('usage: visual-takedown <celebrityId> --reason <why> --by <who> [--name <name>]');
  }
  const settings = visualSearchSettingsFromEnv();
  const nc = await connect({ servers: [...settings.messaging.natsUrl], name: 'openpaw-visual-takedown' });
  try {
    const { takeDown } = await createVisualSearchHandlers(nc, settings);
    if (takeDown === undefined) throw new Error('visual-search built no evidence stores');
    // The service's own handler of `TakeDownVisualPerson` (what `POST /ops/visual-degrees/takedowns` sends), run in process.
    const data = TakeDownVisualPerson.schema.parse({ celebrityId, reason: values.reason, requestedBy: values.by, ...(values.name === undefined ? {} : { name: values.name }) });
    const { data: done } = await takeDown.execute({ commandId: randomUUID(), data });
    console.log(JSON.stringify({ msg: 'visual degrees takedown done', ...done }));
  } finally {
    await nc.close();
  }
}

main().catch((error: unknown) => {
  console.error('visual takedown failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
