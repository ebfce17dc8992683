import { serviceRolePasswordFromEnv, serviceRolesFromEnv, serviceRoleStatements } from './service-roles.js';

describe('service roles settings', () => {
  it('reads OPENPAW_DATABASE_ROLES, naming it when it is neither per-service nor off', () => {
    expect([serviceRolesFromEnv({}), serviceRolesFromEnv({ OPENPAW_DATABASE_ROLES: 'per-service' })]).toEqual([false, true]);
    expect(() => serviceRolesFromEnv({ OPENPAW_DATABASE_ROLES: 'yes' })).toThrow('OPENPAW_DATABASE_ROLES must be per-service or off, got "yes"');
  });

  it('reads the local stack role password only with per-service roles, never echoing it', () => {
    expect(serviceRolePasswordFromEnv({ OPENPAW_DATABASE_ROLES: 'per-service' })).toBeUndefined();
    expect(serviceRolePasswordFromEnv({ OPENPAW_DATABASE_ROLES: 'per-service', OPENPAW_DATABASE_ROLE_PASSWORD: 'local-pass' })).toBe('local-pass');
    expect(() => serviceRolePasswordFromEnv({ OPENPAW_DATABASE_ROLE_PASSWORD: 'local-pass' })).toThrow(
      new Error('OPENPAW_DATABASE_ROLE_PASSWORD is set but OPENPAW_DATABASE_ROLES is not per-service'),
    );
  });

  it('never puts a password in the grant statements (they are the same with or without one)', () => {
    expect(serviceRoleStatements('solve').join('\n')).not.toMatch(/password/i);
  });
});
