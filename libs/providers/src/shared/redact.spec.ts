import { redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it('masks given secrets and anything shaped like a known API key', () => {
    expect(redactSecrets('key my-own-secret-value failed', ['my-own-secret-value'])).toBe('key [redacted] failed');
    expect(redactSecrets('Incorrect API key provided: sk-proj-abcdefghijklmnop')).toBe('Incorrect API key provided: [redacted]');
    expect(redactSecrets('bad key AIzaSyA1234567890abcdefghijklmno')).toBe('bad key [redacted]');
    expect(redactSecrets('Authorization: Bearer eyJhbGciOi.payload.sig')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('nothing secret here')).toBe('nothing secret here');
  });
});
