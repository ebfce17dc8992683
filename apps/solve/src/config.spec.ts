import { solveSettingsFromEnv } from './config.js';

describe('solveSettingsFromEnv: the claim lease', () => {
  it('defaults to a 15 s lease renewed every 5 s', () => {
    expect(solveSettingsFromEnv({})).toMatchObject({ claimLeaseMs: 15_000, claimRenewEveryMs: 5_000 });
  });

  it('reads both from the environment', () => {
    expect(solveSettingsFromEnv({ OPENPAW_SOLVE_CLAIM_LEASE_MS: '9000', OPENPAW_SOLVE_CLAIM_RENEW_MS: '3000' })).toMatchObject({ claimLeaseMs: 9_000, claimRenewEveryMs: 3_000 });
  });

  it('refuses a renewal interval over half the lease, naming the variable', () => {
    expect(() => solveSettingsFromEnv({ OPENPAW_SOLVE_CLAIM_LEASE_MS: '9000', OPENPAW_SOLVE_CLAIM_RENEW_MS: '5000' })).toThrow(
      /OPENPAW_SOLVE_CLAIM_RENEW_MS: must be at most half of OPENPAW_SOLVE_CLAIM_LEASE_MS/,
    );
  });
});
