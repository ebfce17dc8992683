#!/usr/bin/env node
/**
 * A stand-in for the `nats` CLI (github.com/nats-io/natscli) for the runbook's spec, which runs the
 * runbook's lines as written with bash against a real nats-server: the CLI is not on this machine nor
 * installable from npm or Debian, so this script makes the same JetStream API requests through
 * nats.js, for exactly the subcommands and flags the runbook uses, and refuses anything else (a
 * runbook line that changes fails instead of being half understood).
 *
 * Where a later command reads its output, it prints what the CLI prints: `stream get --json` is the
 * CLI's JSON of the stored message (jsm.go's `api.StoredMsg`: `subject`, `seq`, `hdrs` and `data`
 * base64, `time`), the JetStream API's own `STREAM.MSG.GET` answer. `pub` reads its body from stdin
 * only with `--force-stdin`, as the CLI does when its output is not a terminal (a script). The server
 * is `NATS_URL`, as for the CLI. Run from source with node (type stripping; the build leaves tools/testing out,
 * so the image has no copy); it imports only @nats-io packages.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';

/** A command line's words after `nats`: positional arguments, and flags (`--name value`, `--name=value`, `-f`). */
interface Parsed {
  readonly positional: string[];
  readonly flags: Map<string, string[]>;
}

/** Flags that take no value. */
const SWITCHES = new Set(['json', 'jetstream', 'pull', 'defaults', 'force-stdin', 'f', 'force']);

function parse(words: readonly string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    const flag = /^--?([a-z][a-z-]*)(?:=(.*))?$/.exec(word);
    if (flag === null) {
      positional.push(word);
      continue;
    }
    const name = flag[1] ?? '';
    const value = flag[2] ?? (SWITCHES.has(name) ? 'true' : words[++i]);
    if (value === undefined) throw new Error(`--${name} needs a value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positional, flags };
}

/** Refuses flags this stand-in does not implement for the subcommand. */
function only(parsed: Parsed, allowed: readonly string[], usage: string): void {
  const unknown = [...parsed.flags.keys()].filter((name) => !allowed.includes(name));
  if (unknown.length > 0) throw new Error(`this stand-in of the nats CLI does not implement --${unknown.join(', --')} for "${usage}"`);
}

function positiveInteger(text: string | undefined, what: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${what}: a positive integer, not "${text ?? ''}"`);
  return value;
}

const decoder = new TextDecoder();

function headerLines(hdrs: MsgHdrs | undefined): string[] {
  if (hdrs === undefined) return [];
  return [...hdrs.keys()].flatMap((key) => hdrs.values(key).map((value) => `  ${key}: ${value}`));
}

/** NATS subject matching: `*` one token, `>` the rest. */
function subjectMatches(filter: string, subject: string): boolean {
  const wanted = filter.split('.');
  const tokens = subject.split('.');
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === '>') return tokens.length > i;
    if (i >= tokens.length || (wanted[i] !== '*' && wanted[i] !== tokens[i])) return false;
  }
  return wanted.length === tokens.length;
}

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

async function main(words: readonly string[]): Promise<void> {
  const servers = process.env['NATS_URL'];
  if (servers === undefined || servers === '') throw new Error('NATS_URL is not set');
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    const [group, action, ...rest] = words;
    const parsed = parse(rest);
    const [first, second] = parsed.positional;
    const usage = `${group ?? ''} ${action ?? ''}`;
    if (group === 'stream' && action === 'info' && first !== undefined) {
      only(parsed, [], usage);
      const info = await jsm.streams.info(first);
      console.log(`Information for Stream ${first} created ${info.created}\n`);
      console.log(`State:\n\n             Messages: ${info.state.messages}\n                Bytes: ${info.state.bytes}`);
      console.log(`       First Sequence: ${info.state.first_seq} @ ${info.state.first_ts}\n        Last Sequence: ${info.state.last_seq} @ ${info.state.last_ts}`);
      console.log(`     Active Consumers: ${info.state.consumer_count}\n   Number of Subjects: ${info.state.num_subjects ?? 0}`);
    } else if (group === 'stream' && action === 'subjects' && first !== undefined) {
      only(parsed, [], usage);
      const info = await jsm.streams.info(first, { subjects_filter: '>' });
      const subjects = Object.entries(info.state.subjects ?? {}).sort(([a], [b]) => a.localeCompare(b));
      console.log(`${subjects.length} Subjects in stream ${first}\n`);
      for (const [subject, count] of subjects) console.log(`${subject}: ${count}`);
    } else if (group === 'stream' && action === 'view' && first !== undefined) {
      only(parsed, ['subject', 'raw'], usage);
      const subject = parsed.flags.get('subject')?.[0] ?? '>';
      // Each stored message on the subject, in order, read by sequence (no consumer; any server version).
      const { first_seq: firstSeq, last_seq: lastSeq } = (await jsm.streams.info(first)).state;
      for (let seq = firstSeq; seq > 0 && seq <= lastSeq; seq++) {
        const message = await jsm.streams.getMessage(first, { seq }).catch(() => null);
        if (message === null || !subjectMatches(subject, message.subject)) continue;
        console.log(`[${message.seq}] Subject: ${message.subject} Received: ${message.time.toISOString()}`);
        const lines = headerLines(message.header);
        if (lines.length > 0) console.log(lines.join('\n'));
        console.log(`\n${decoder.decode(message.data)}\n`);
      }
    } else if (group === 'stream' && action === 'get' && first !== undefined) {
      only(parsed, ['json'], usage);
      const seq = positiveInteger(second, 'sequence');
      // The API's own answer: `message` is what the CLI prints for --json (jsm.go's api.StoredMsg).
      const reply = await nc.request(`$JS.API.STREAM.MSG.GET.${first}`, JSON.stringify({ seq }), { timeout: 5_000 });
      const answer = reply.json<{ message?: { subject: string; seq: number; hdrs?: string; data?: string; time: string }; error?: { description: string } }>();
      if (answer.message === undefined) throw new Error(`could not retrieve ${first}#${seq}: ${answer.error?.description ?? 'no message'}`);
      const stored = answer.message;
      if (parsed.flags.has('json')) {
        console.log(JSON.stringify({ subject: stored.subject, seq: stored.seq, ...(stored.hdrs === undefined ? {} : { hdrs: stored.hdrs }), ...(stored.data === undefined ? {} : { data: stored.data }), time: stored.time }, null, 2));
        return;
      }
      console.log(`Item: ${first}#${stored.seq} received ${stored.time} on Subject ${stored.subject}\n`);
      const block = stored.hdrs === undefined ? '' : Buffer.from(stored.hdrs, 'base64').toString('utf8');
      const lines = block.split('\r\n').slice(1).filter((line) => line !== '');
      if (lines.length > 0) console.log(`Headers:\n${lines.map((line) => `  ${line}`).join('\n')}\n`);
      console.log(Buffer.from(stored.data ?? '', 'base64').toString('utf8'));
    } else if (group === 'stream' && action === 'rmm' && first !== undefined) {
      only(parsed, ['f', 'force'], usage);
      if (!parsed.flags.has('f') && !parsed.flags.has('force')) throw new Error('rmm asks for confirmation on a terminal; a script passes -f');
      await jsm.streams.deleteMessage(first, positiveInteger(second, 'sequence'), true);
    } else if (group === 'pub' && action !== undefined) {
      // `nats pub SUBJECT [BODY]`: here `action` is the subject.
      const allFlags = parse(words.slice(2));
      only(allFlags, ['header', 'jetstream', 'force-stdin'], 'pub');
      const [body, extra] = allFlags.positional;
      if (extra !== undefined) throw new Error(`pub takes a subject and a body, not "${extra}"`);
      if (body === undefined && !allFlags.flags.has('force-stdin')) {
        throw new Error('no body: without a terminal the nats CLI reads the body from stdin only with --force-stdin');
      }
      const data = body === undefined ? await readStdin() : new TextEncoder().encode(body);
      const hdrs = natsHeaders();
      for (const header of allFlags.flags.get('header') ?? []) {
        const colon = header.indexOf(':');
        if (colon <= 0) throw new Error(`--header "${header}": Key:Value`);
        hdrs.append(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
      }
      if (allFlags.flags.has('jetstream')) {
        const ack = await jetstream(nc).publish(action, data, { headers: hdrs });
        console.log(`Published ${data.length} bytes to "${action}"${ack.duplicate ? ' (a duplicate: dropped by the stream)' : ''}\nStream: ${ack.stream} Sequence: ${ack.seq}`);
      } else {
        nc.publish(action, data, { headers: hdrs });
        await nc.flush();
      }
    } else if (group === 'consumer' && action === 'add' && first !== undefined && second !== undefined) {
      only(parsed, ['pull', 'ack', 'deliver', 'filter', 'defaults'], usage);
      if (!parsed.flags.has('pull')) throw new Error('this stand-in makes pull consumers only (--pull)');
      const ack = parsed.flags.get('ack')?.[0] ?? 'explicit';
      if (ack !== 'explicit') throw new Error(`--ack ${ack}: this stand-in knows explicit only`);
      const deliver = parsed.flags.get('deliver')?.[0] ?? 'all';
      const start = deliver === 'all' ? undefined : new Date(deliver);
      if (start !== undefined && Number.isNaN(start.getTime())) throw new Error(`--deliver ${deliver}: all, or a start time`);
      const filter = parsed.flags.get('filter')?.[0];
      const info = await jsm.consumers.add(first, {
        durable_name: second,
        ack_policy: AckPolicy.Explicit,
        ...(start === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: start.toISOString() }),
        ...(filter === undefined ? {} : { filter_subject: filter }),
      });
      console.log(`Information for Consumer ${first} > ${info.name}\n\n  Filter Subject: ${info.config.filter_subject ?? ''}\n  Deliver Policy: ${info.config.deliver_policy}`);
    } else {
      throw new Error(`this stand-in of the nats CLI does not implement "nats ${words.join(' ')}"`);
    }
  } finally {
    await nc.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`nats: error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
