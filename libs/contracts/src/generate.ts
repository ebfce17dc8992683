import { stringify } from 'yaml';
import { z } from 'zod';
import { catalog } from './catalog.js';
import { envelopeSchema } from './envelope.js';
import { laneDurableOf, laneOf } from './lanes.js';
import type { AnyMessageDefinition } from './message-definition.js';
import { sendersOf } from './senders.js';
import { deadLetterSubjectOf, schemaPathOf, SCHEMA_BASE_URI, STREAMS } from './subjects.js';

/** The headers a dead letter carries (set by libs/messaging's consumer). */
const DEAD_LETTER_HEADERS: Record<string, string> = {
  'Openpaw-Dlq-Reason': 'why it was dead-lettered (parse error, refusal, last failure)',
  'Openpaw-Dlq-Original-Subject': 'the subject it arrived on',
  'Openpaw-Dlq-Stream': 'the stream it was read from',
  'Openpaw-Dlq-Stream-Seq': 'its sequence in that stream (replay it from there)',
  'Openpaw-Dlq-Consumer': 'the durable consumer that gave up',
  'Openpaw-Dlq-Deliveries': 'deliveries before it was dead-lettered',
  'Openpaw-Dlq-Original-Msg-Id': 'the original Nats-Msg-Id',
  'Openpaw-Dlq-Item-Id': 'a batched command item dead-lettered alone: its item id (the dead letter is the one-item batch; ADR 0025)',
};

type JsonSchema = Record<string, unknown>;

/**
 * Drops `additionalProperties: false` everywhere: consumers ignore unknown fields, so a published
 * schema must accept a message that gained an optional field (zod still strips unknown keys when
 * parsing). Schema-valued `additionalProperties` (records) stay.
 */
export function openToUnknownFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openToUnknownFields);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'additionalProperties' && child === false) continue;
    out[key] = openToUnknownFields(child);
  }
  return out;
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  return openToUnknownFields(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as JsonSchema;
}

function messageSchemaDocument(definition: AnyMessageDefinition): JsonSchema {
  const { $schema, ...body } = jsonSchemaOf(definition.schema as z.ZodType);
  return {
    $schema,
    $id: definition.dataschema,
    title: `${definition.context}.${definition.name}.v${definition.version}`,
    description: definition.description,
    'x-openpaw-subject': definition.subject,
    'x-openpaw-kind': definition.kind === 'cmd' ? 'command' : 'event',
    ...body,
  };
}

const componentKey = (d: AnyMessageDefinition): string => `${d.context}_${d.name}_v${d.version}`;

function asyncApiDocument(): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const definition of catalog) {
    const key = componentKey(definition);
    const { $schema: _ignored, ...data } = jsonSchemaOf(definition.schema as z.ZodType);
    const lane = laneOf(definition);
    messages[key] = {
      name: `${definition.context}.${definition.name}`,
      title: `${definition.context}.${definition.name} v${definition.version}`,
      summary: definition.description,
      ...(definition.supersededBy === undefined ? {} : { deprecated: true, 'x-openpaw-superseded-by': definition.supersededBy }),
      contentType: 'application/cloudevents+json',
      headers: {
        type: 'object',
        properties: {
          'Nats-Msg-Id': { type: 'string', description: 'the envelope id; JetStream drops re-publishes inside the duplicate window' },
          traceparent: { type: 'string', description: 'W3C trace context' },
        },
      },
      'x-nats-msg-id': 'the envelope id (JetStream de-duplicates on it inside the duplicate window)',
      payload: {
        allOf: [
          { $ref: '#/components/schemas/Envelope' },
          {
            type: 'object',
            properties: { type: { const: definition.subject }, dataschema: { const: definition.dataschema }, data },
          },
        ],
      },
    };
    channels[key] = {
      address: definition.subject,
      description: `${definition.kind === 'cmd' ? 'Command' : 'Event'} channel, stream ${definition.kind === 'cmd' ? STREAMS.commands.name : STREAMS.events.name}.`,
      messages: { [key]: { $ref: `#/components/messages/${key}` } },
      'x-nats-stream': definition.kind === 'cmd' ? STREAMS.commands.name : STREAMS.events.name,
      'x-nats-dead-letter-subject': deadLetterSubjectOf(definition.subject),
      'x-openpaw-dataschema': definition.dataschema,
      // The services allowed to publish it (their NATS users may publish exactly these subjects; plus the gateway's dead-letter redrive).
      'x-openpaw-senders': [...sendersOf(definition)],
      ...(lane === undefined ? {} : { 'x-nats-durable': laneDurableOf(definition.context, lane), 'x-openpaw-consumers': 'exactly one (the owning service, on this lane)' }),
      ...(lane === undefined ? {} : { 'x-openpaw-lane': lane }),
    };
    operations[definition.kind === 'cmd' ? `handle_${key}` : `publish_${key}`] = {
      action: definition.kind === 'cmd' ? 'receive' : 'send',
      channel: { $ref: `#/channels/${key}` },
      summary: definition.description,
      messages: [{ $ref: `#/channels/${key}/messages/${key}` }],
    };
  }
  channels['deadLetters'] = {
    address: 'openpaw.dlq.{original}',
    title: 'Dead letters',
    description:
      'A message that could not be parsed, was refused, or kept failing is republished here with the reason in headers, and the consumer moves on. ' +
      '`{original}` is the original subject without the `openpaw.` prefix (`openpaw.cmd.solve.GenerateSolution.v1` -> `openpaw.dlq.cmd.solve.GenerateSolution.v1`). ' +
      'The payload is the original bytes, unchanged (possibly not a valid envelope). Kept 30 days; see docs/ops for inspection and redrive.',
    parameters: { original: { description: 'the original subject after `openpaw.`' } },
    messages: { deadLetter: { $ref: '#/components/messages/deadLetter' } },
    'x-nats-stream': STREAMS.deadLetters.name,
  };
  operations['receive_deadLetters'] = {
    action: 'receive',
    channel: { $ref: '#/channels/deadLetters' },
    summary: 'Operators and tooling inspect, redrive or discard dead letters.',
    messages: [{ $ref: '#/channels/deadLetters/messages/deadLetter' }],
  };
  messages['deadLetter'] = {
    name: 'deadLetter',
    title: 'Dead letter',
    summary: 'The original message, with why and where it failed.',
    contentType: 'application/octet-stream',
    headers: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(DEAD_LETTER_HEADERS).map(([header, description]) => [header, { type: 'string', description }])),
      required: ['Openpaw-Dlq-Reason', 'Openpaw-Dlq-Original-Subject'],
    },
    payload: { description: 'the original message bytes' },
  };
  const { $schema: _s, ...envelope } = jsonSchemaOf(envelopeSchema);
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'OpenPaw events',
      version: '1.0.0',
      description:
        'Commands (one consumer) and events (many) exchanged over NATS JetStream, each a CloudEvents 1.0 event in JSON structured mode. Generated from libs/contracts; do not edit.',
    },
    defaultContentType: 'application/cloudevents+json',
    servers: {
      production: {
        host: 'nats.nats.svc.cluster.local:4222',
        protocol: 'nats',
        protocolVersion: '2.10',
        description:
          'The production NATS cluster (nats-server 2.10 or later: deploy/nats/values.yaml sets sync_interval, which 2.9 refuses; 3 nodes, JetStream R3; TLS where the installation enables it). CI runs the platform and partner access on nats-server 2.9.10, so clients need nothing newer than 2.9. Teams outside the platform get a user in their own account that may only pull, through the prefix openpaw.api, from the consumers ops created for them on OPENPAW_EVENTS for the allowlisted events (ADR 0019; steps in contracts/README.md).',
        security: [{ $ref: '#/components/securitySchemes/natsCredentials' }, { $ref: '#/components/securitySchemes/mutualTls' }],
        'x-nats-jetstream': { duplicateWindow: '2m', replicas: 3 },
      },
      local: { host: '127.0.0.1:4222', protocol: 'nats', description: 'local nats-server with JetStream (./scripts/up.sh, docker-compose); no auth' },
    },
    channels,
    operations,
    components: {
      schemas: { Envelope: envelope },
      messages,
      securitySchemes: {
        natsCredentials: {
          type: 'userPassword',
          description: 'NATS user/password issued per subscribing team in its own account (ADR 0019), allowed only the consumer info, next-message and ack subjects of its own consumers.',
        },
        mutualTls: { type: 'X509', description: 'TLS client certificate, where the cluster requires mutual TLS.' },
      },
    },
  };
}

/** Files under `contracts/` that are not generated: the README and the previous release's schemas. */
export function isKept(path: string): boolean {
  return path === 'README.md' || path.startsWith('baseline/');
}

/** Every generated file under `contracts/`, path → content. Pure: the drift test compares it to disk. */
export function renderContractFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const { $schema, ...envelope } = jsonSchemaOf(envelopeSchema);
  files.set(
    'events/envelope.schema.json',
    `${JSON.stringify({ $schema, $id: `${SCHEMA_BASE_URI}events/envelope.schema.json`, title: 'OpenPaw envelope (CloudEvents 1.0)', ...envelope }, null, 2)}\n`,
  );
  for (const definition of catalog) {
    const path = schemaPathOf(definition.kind, definition.context, definition.name, definition.version);
    files.set(path, `${JSON.stringify(messageSchemaDocument(definition), null, 2)}\n`);
  }
  files.set('asyncapi.yaml', `# Generated from libs/contracts by \`npm run contracts:generate\`. Do not edit.\n${stringify(asyncApiDocument(), { aliasDuplicateObjects: false, lineWidth: 0 })}`);
  return files;
}
