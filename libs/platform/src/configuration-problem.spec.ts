import { configurationProblem, redactSecrets } from './configuration-problem.js';

describe('configurationProblem', () => {
  it('names every variable the settings error names, in order, once each', () => {
    const error = new Error('invalid gateway configuration: OPENPAW_JWT_SECRET: set OPENPAW_JWT_SECRET (HS256) or OPENPAW_JWKS_URL; OPENPAW_GATEWAY_POOL_SIZE: Too small');
    expect(configurationProblem(error, {})).toEqual({
      setting: 'OPENPAW_JWT_SECRET, OPENPAW_JWKS_URL, OPENPAW_GATEWAY_POOL_SIZE',
      detail: error.message,
    });
  });

  it('says `configuration` when the error names no variable, and puts a multi-line message on one line', () => {
    expect(configurationProblem(new Error('something is wrong:\n  ✖ here'), {})).toEqual({ setting: 'configuration', detail: 'something is wrong: ✖ here' });
    expect(configurationProblem('not an Error', {})).toEqual({ setting: 'configuration', detail: 'not an Error' });
  });

  it('never repeats the value of a secret-named variable or a password in a URL', () => {
    const env = { OPENAI_API_KEY: 'sk-live-123456', OPENPAW_JWT_SECRET: 'tiny', OPENPAW_NATS_PASSWORD: 'hunter22', OPENPAW_RETRIEVAL_POOL_SIZE: 'abcd' };
    const error = new Error(
      'OPENAI_API_KEY "sk-live-123456" rejected; OPENPAW_JWT_SECRET tiny too short; OPENPAW_DATABASE_URL postgres://openpaw_solve:p%40ss@db:5432/openpaw bad; pool abcd; nats hunter22',
    );
    const problem = configurationProblem(error, env);
    expect(problem.detail).toBe(
      'OPENAI_API_KEY "[redacted]" rejected; OPENPAW_JWT_SECRET [redacted] too short; OPENPAW_DATABASE_URL postgres://openpaw_solve:[redacted]@db:5432/openpaw bad; pool abcd; nats [redacted]',
    );
    expect(problem.setting).toBe('OPENAI_API_KEY, OPENPAW_JWT_SECRET, OPENPAW_DATABASE_URL');
  });

  it('replaces a longer secret whole when it contains a shorter one', () => {
    expect(redactSecrets('token abcdefgh', { A_TOKEN: 'abcd', B_TOKEN: 'abcdefgh' })).toBe('token [redacted]');
  });
});
