import { pino } from 'pino';
import { errorMessage, type MessagingLogger } from './observability.js';

describe('observability', () => {
  it('accepts a pino logger where a MessagingLogger is expected', () => {
    const lines: string[] = [];
    const logger: MessagingLogger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    logger.warn({ subject: 'openpaw.cmd.x.Y.v1' }, 'message dead-lettered');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ subject: 'openpaw.cmd.x.Y.v1', msg: 'message dead-lettered', level: 40 });
  });

  it('reads a message from anything thrown', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage({ code: 7 })).toBe('{"code":7}');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
