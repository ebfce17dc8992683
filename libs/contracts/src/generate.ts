import { stringify } from 'yaml';
import { z } from 'zod';
import { catalog } from './catalog.js';
import { envelopeSchema } from './envelope.js';
import { laneDurableOf, laneOf } from './lanes.js';
import type { AnyMessageDefinition } from './message-definition.js';
import { schemaPathOf, SCHEMA_BASE_URI, STREAMS } from './subjects.js';

type JsonSchema = Record<string, unknown>;

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
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
    messages[key] = {
      name: `${definition.context}.${definition.name}`,
      title: `${definition.context}.${definition.name} v${definition.version}`,
      summary: definition.description,
      contentType: 'application/cloudevents+json',
      headers: {
        type: 'object',
        properties: {
          'Nats-Msg-Id': { type: 'string', description: 'the envelope id; JetStream drops re-publishes inside the duplicate window' },
          traceparent: { type: 'string', description: 'W3C trace context' },
        },
      },
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
    };
    operations[definition.kind === 'cmd' ? `handle_${key}` : `publish_${key}`] = {
      action: definition.kind === 'cmd' ? 'receive' : 'send',
      channel: { $ref: `#/channels/${key}` },
      summary: definition.description,
      messages: [{ $ref: `#/channels/${key}/messages/${key}` }],
      ...lanePropertiesOf(definition),
    };
  }
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
    servers: { local: { host: '127.0.0.1:4222', protocol: 'nats', description: 'local nats-server with JetStream' } },
    channels,
    operations,
    components: { schemas: { Envelope: envelope }, messages },
  };
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

/** A command's lane and the durable consumer that reads it (flow control: see `lanes.ts`). */
function lanePropertiesOf(definition: AnyMessageDefinition): Record<string, string> {
  const lane = laneOf(definition);
  if (lane === undefined) return {};
  return {
    'x-openpaw-lane': lane,
    'x-openpaw-durable': laneDurableOf(definition.context, lane),
  };
}
