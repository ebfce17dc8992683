import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DLQ_HEADERS } from './consumer.js';

describe('the dead-letter channel in contracts/asyncapi.yaml', () => {
  it('documents every header the consumer sets on a dead letter', () => {
    const doc = parse(readFileSync(join(import.meta.dirname, '../../../contracts/asyncapi.yaml'), 'utf8')) as {
      components: { messages: { deadLetter: { headers: { properties: Record<string, unknown> } } } };
    };
    expect(Object.keys(doc.components.messages.deadLetter.headers.properties).sort()).toEqual(Object.values(DLQ_HEADERS).sort());
  });
});
