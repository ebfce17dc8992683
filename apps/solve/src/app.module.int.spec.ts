import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { boundedMathsEngine } from '@openpaw/maths/bounded';
import { startService } from '@openpaw/platform';
import type { LlmClient } from '@openpaw/providers';
import { freshDatabase, privateNatsServer } from '@openpaw/testing';
import { SolveModule, SERVICE_NAME } from './app.module.js';
import { solveSettingsFromEnv } from './config.js';
import { SOLVE_LLM } from './ports.js';

process.env['LOG_LEVEL'] ??= 'warn';

it('boots the solve service from env: probes (database included), metrics (its LLM calls included), its durable commands consumer, and no maths engine worker before the first solve', async () => {
  const nats = await privateNatsServer();
  const blobDir = await mkdtemp(join(tmpdir(), 'openpaw-solve-boot-'));
  const settings = solveSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_BLOB_DIR: blobDir, OPENPAW_DATABASE_URL: await freshDatabase('solve_boot') });
  const { app, url } = await startService({ name: SERVICE_NAME, module: SolveModule.forRoot(settings), defaultPort: 0, port: 0 });
  try {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', service: 'solve' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('database');
    // Ready without the engine: its worker process starts with the first solve (ADR 0039).
    expect(boundedMathsEngine().workerCount).toBe(0);
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('openpaw_messages_handled_total');
    // The LLM client built from env reports its calls on the service's metrics.
    const answer = await app.get<symbol, LlmClient>(SOLVE_LLM).chat([{ role: 'user', content: 'Solve 2x + 3 = 7' }], { maxTokens: 200 });
    expect(boundedMathsEngine().workerCount).toBe(1);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain(`openpaw_llm_attempts_total{service="solve",provider="local",model="${answer.model}",outcome="ok"} 1`);
    expect(metrics).toContain(`openpaw_llm_tokens_total{service="solve",provider="local",model="${answer.model}",direction="output"} ${answer.usage.outputTokens}`);
    const nc = await connect({ servers: nats.url });
    const consumer = await (await jetstreamManager(nc)).consumers.info(STREAMS.commands.name, 'svc-solve');
    await nc.close();
    expect(consumer.config.filter_subject).toBe('openpaw.cmd.solve.>');
  } finally {
    await app.close();
    await nats.dispose();
    await rm(blobDir, { recursive: true, force: true });
  }
});
