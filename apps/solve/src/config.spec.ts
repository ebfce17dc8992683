import { DEFAULT_MATHS_BUDGET } from '@openpaw/maths';
import { boundedMathsEngine } from '@openpaw/maths/bounded';
import { SolveModule } from './app.module.js';
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

describe('solveSettingsFromEnv: the maths engine\'s budget per solve', () => {
  it('defaults to the engine\'s own budget and reads both limits from the environment', () => {
    expect(solveSettingsFromEnv({}).mathsBudget).toEqual(DEFAULT_MATHS_BUDGET);
    expect(solveSettingsFromEnv({ OPENPAW_SOLVE_MATHS_BUDGET_STEPS: '50000', OPENPAW_SOLVE_MATHS_BUDGET_MS: '200' }).mathsBudget).toEqual({ steps: 50_000, millis: 200 });
  });

  it('refuses a budget that is not a positive whole number, naming the variable', () => {
    expect(() => solveSettingsFromEnv({ OPENPAW_SOLVE_MATHS_BUDGET_STEPS: '-1' })).toThrow(/OPENPAW_SOLVE_MATHS_BUDGET_STEPS/);
  });
});

describe('solveSettingsFromEnv: the maths engine\'s workers', () => {
  it('leaves the count to the engine by default and reads it from the environment', () => {
    expect(solveSettingsFromEnv({}).mathsWorkers).toBeUndefined();
    expect(solveSettingsFromEnv({ OPENPAW_SOLVE_MATHS_WORKERS: '3' }).mathsWorkers).toBe(3);
  });

  it.each(['0', '17', '2.5', 'two'])('refuses %j, naming the variable', (workers) => {
    expect(() => solveSettingsFromEnv({ OPENPAW_SOLVE_MATHS_WORKERS: workers })).toThrow(/OPENPAW_SOLVE_MATHS_WORKERS/);
  });

  it('is the count of the process\'s engine once the service module is built', async () => {
    SolveModule.forRoot({ ...solveSettingsFromEnv({}), mathsWorkers: 3 });
    expect(boundedMathsEngine().workerLimit).toBe(3);
    await boundedMathsEngine().close();
    SolveModule.forRoot(solveSettingsFromEnv({}));
  });
});

describe('solveSettingsFromEnv: the maths translation model (issue 24)', () => {
  it('is off by default and reads a provider/model, refusing anything else by name', () => {
    expect(solveSettingsFromEnv({}).mathsTranslationModel).toBeUndefined();
    expect(solveSettingsFromEnv({ OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL: 'local/deterministic' }).mathsTranslationModel).toBe('local/deterministic');
    expect(() => solveSettingsFromEnv({ OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL: 'gpt' })).toThrow(/OPENPAW_SOLVE_MATHS_TRANSLATION_MODEL/);
  });
});
