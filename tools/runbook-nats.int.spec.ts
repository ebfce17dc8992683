import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { deadLetterSubjectOf, GenerateSolution, STREAMS } from '@openpaw/contracts';
import { type ConsumerHandle, DEFAULT_STREAM_SETTINGS, DLQ_HEADERS, ensureConsumer, provisionStreams, serviceCommandsDurable, serviceCommandsFilter, startConsumer } from '@openpaw/messaging';
import { type NatsServerHandle, privateNatsServer } from '@openpaw/testing';

/**
 * The runbook's `nats` lines (docs/ops/runbook.md, "Dead letters" and "Replay") run as written, with
 * bash, jq and base64, against a real nats-server whose streams the platform's provisioning made and
 * whose dead letter the platform's consumer wrote. No `nats` CLI binary is on this machine (nor in
 * npm or Debian): `nats` on PATH is `tools/testing/nats-cli-stand-in.ts`, which makes the CLI's
 * JetStream requests through nats.js and prints what the CLI prints where a later line reads it
 * (`stream get --json`). What this shows: the lines' streams, subjects, flags and pipeline work
 * together, the redrive puts the original bytes back on the original subject with the original
 * message id, and the replay consumer starts where it says. What it cannot show: the real CLI's
 * human-readable output.
 */
const root = join(import.meta.dirname, '..');
const STAND_IN = join(root, 'tools/testing/nats-cli-stand-in.ts');
/** The duplicate window of the streams here: short, so the redrive is not dropped as the duplicate it is (the runbook's caveat). */
const DUPLICATE_WINDOW_MS = 1_000;
const POISON_MSG_ID = 'runbook-poison-1';
const OTHER_DEAD_LETTER = deadLetterSubjectOf('openpaw.cmd.research.SomethingElse.v1');
const POISON = '{"specversion": "1.0", "id": "runbook-poison-1", "data": {broken';

/** The commands of a section's fenced `sh` blocks, continuation lines joined, comments dropped; one list per block. */
async function runbookBlocks(heading: string): Promise<string[][]> {
  const runbook = await readFile(join(root, 'docs/ops/runbook.md'), 'utf8');
  const start = runbook.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`docs/ops/runbook.md has no "## ${heading}"`);
  const end = runbook.indexOf('\n## ', start + 3);
  const section = runbook.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map(([, body]) =>
    body!
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

describe('the runbook’s nats lines, run against a real nats-server', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let js: JetStreamClient;
  let consumer: ConsumerHandle | undefined;
  let dir: string;
  let bin: string;

  /** Runs `script` with bash in the working directory, the stand-in first on PATH as `nats`. */
  const bash = (script: string): Promise<Ran> =>
    new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', `set -eo pipefail\n${script}`], { cwd: dir, env: { ...process.env, NATS_URL: nats.url, PATH: `${bin}:${process.env['PATH'] ?? ''}` } });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end();
    });

  beforeAll(async () => {
    nats = await privateNatsServer();
    nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
    js = jetstream(nc);
    await provisionStreams(jsm, { settings: { ...DEFAULT_STREAM_SETTINGS, duplicateWindowMs: DUPLICATE_WINDOW_MS } });
    dir = await mkdtemp(join(tmpdir(), 'openpaw-runbook-'));
    bin = await mkdtemp(join(tmpdir(), 'openpaw-runbook-bin-'));
    await writeFile(join(bin, 'nats'), `#!/bin/sh\nexec "${process.execPath}" "${STAND_IN}" "$@"\n`);
    await chmod(join(bin, 'nats'), 0o755);

    // A command the solve service cannot parse, dead-lettered by the platform's own consumer.
    const durable = serviceCommandsDurable('solve');
    await ensureConsumer(jsm, { stream: STREAMS.commands.name, durable, filterSubject: serviceCommandsFilter('solve'), maxDeliver: 2, ackWaitMs: 5_000, maxAckPending: 10 });
    consumer = await startConsumer(js, { stream: STREAMS.commands.name, durable, definitions: [GenerateSolution], handler: () => Promise.resolve(), maxDeliver: 1 });
    const poisonHeaders = headers();
    poisonHeaders.set('Nats-Msg-Id', POISON_MSG_ID);
    await js.publish(GenerateSolution.subject, POISON, { headers: poisonHeaders });
    const deadline = Date.now() + 10_000;
    while ((await jsm.streams.info(STREAMS.deadLetters.name)).state.messages === 0) {
      if (Date.now() > deadline) throw new Error('the poison command was not dead-lettered within 10 s');
      await new Promise((done) => setTimeout(done, 100));
    }
    // Another service's dead letter, which the runbook's filter on solve's must leave out.
    await js.publish(OTHER_DEAD_LETTER, 'another service\'s dead letter');
    // The consumer stops before the redrive, so what is put back stays there to be read.
    await consumer.stop();
    consumer = undefined;
  }, 60_000);

  afterAll(async () => {
    await consumer?.stop();
    await nc?.close();
    await nats?.dispose();
    for (const path of [dir, bin]) if (path !== undefined) await rm(path, { recursive: true, force: true });
  });

  it('inspect the dead letter: how many, which message types, its headers and body', async () => {
    const [inspect] = await runbookBlocks('Dead letters: inspect, redrive, discard');
    const seq = (await jsm.streams.getMessage(STREAMS.deadLetters.name, { last_by_subj: deadLetterSubjectOf(GenerateSolution.subject) }))!.seq;
    expect(inspect).toHaveLength(4);
    const outputs: Ran[] = [];
    for (const line of inspect ?? []) outputs.push(await bash(line.replaceAll('<seq>', String(seq))));
    expect(outputs.map((ran, i) => ({ line: inspect?.[i], status: ran.status, stderr: ran.stderr }))).toEqual((inspect ?? []).map((line) => ({ line, status: 0, stderr: '' })));
    const [info, subjects, view, get] = outputs.map((ran) => ran.stdout);
    expect(info).toMatch(/Messages: 2\b/);
    expect(subjects).toContain(`${deadLetterSubjectOf(GenerateSolution.subject)}: 1`);
    expect(subjects).toContain(`${OTHER_DEAD_LETTER}: 1`);
    expect(view).not.toContain(OTHER_DEAD_LETTER);
    for (const shown of [view, get]) {
      expect(shown).toMatch(new RegExp(`${DLQ_HEADERS.reason}: malformed JSON`));
      expect(shown).toContain(`${DLQ_HEADERS.originalSubject}: ${GenerateSolution.subject}`);
      expect(shown).toContain(POISON);
    }
  });

  it('redrive it: the original bytes on the original subject with the original message id, then the dead letter removed', async () => {
    const [, redrive] = await runbookBlocks('Dead letters: inspect, redrive, discard');
    const seq = (await jsm.streams.getMessage(STREAMS.deadLetters.name, { last_by_subj: deadLetterSubjectOf(GenerateSolution.subject) }))!.seq;
    const before = (await jsm.streams.info(STREAMS.commands.name)).state.last_seq;
    // Past the duplicate window (the runbook's caveat): the republish is not dropped.
    await new Promise((done) => setTimeout(done, DUPLICATE_WINDOW_MS + 200));
    const ran = await bash((redrive ?? []).map((line) => line.replaceAll('<seq>', String(seq))).join('\n'));
    expect({ status: ran.status, stderr: ran.stderr }).toEqual({ status: 0, stderr: '' });
    const commands = await jsm.streams.info(STREAMS.commands.name);
    expect(commands.state.last_seq).toBe(before + 1);
    const redriven = await jsm.streams.getMessage(STREAMS.commands.name, { seq: commands.state.last_seq });
    expect({ subject: redriven?.subject, msgId: redriven?.header.get('Nats-Msg-Id'), body: redriven?.string() }).toEqual({ subject: GenerateSolution.subject, msgId: POISON_MSG_ID, body: POISON });
    // That dead letter is gone; the other service's stays.
    expect((await jsm.streams.info(STREAMS.deadLetters.name, { subjects_filter: '>' })).state.subjects).toEqual({ [OTHER_DEAD_LETTER]: 1 });
  });

  it('replay: a new pull consumer of the events from the given time, on the given subjects', async () => {
    const [replay] = await runbookBlocks('Replay');
    expect(replay).toHaveLength(1);
    const ran = await bash(replay!.join('\n'));
    expect({ status: ran.status, stderr: ran.stderr }).toEqual({ status: 0, stderr: '' });
    const consumers = [];
    for await (const info of jsm.consumers.list(STREAMS.events.name)) consumers.push(info);
    const added = consumers.find((info) => /^replay-\d+$/.test(info.name));
    expect(added?.config).toMatchObject({ ack_policy: 'explicit', deliver_policy: 'by_start_time', opt_start_time: '2026-11-20T00:00:00Z', filter_subject: 'openpaw.evt.workflow.>' });
    expect(added?.config.deliver_subject).toBeUndefined();
  });
});
