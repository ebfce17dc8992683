import { retrieveOrGenerateResult, retrieveOrGenerateView, type RetrieveOrGenerateView } from './retrieve-or-generate-view.js';

const RUN = '0b7a3c52-3f4e-4f7e-9a51-6f2d1c0e9b11';
const EARLIER = '5d1e7f0a-2b3c-4d5e-8f90-a1b2c3d4e5f6';
const ASSET = '9c8b7a65-4321-4fed-8cba-0987654321ab';

describe('the retrieve_or_generate view', () => {
  const succeeded: RetrieveOrGenerateView = {
    status: 'succeeded',
    outcome: 'hit',
    output: { asset_version_id: ASSET, video_pending: false, is_approximate: false },
    workflow_run_id: RUN,
    attempt_no: 1,
    cost_usd: 0.0123,
    duration_ms: 840,
    state: 'SUCCEEDED',
    problem_signature: { text_sha256: 'ab'.repeat(32), subject: 'maths' },
    cached_from: EARLIER,
  };

  it('reads every view the coordinator may write, unchanged, as its readers take it', () => {
    const running: RetrieveOrGenerateView = { status: 'running', output: {}, workflow_run_id: RUN, attempt_no: 2, cost_usd: 0, duration_ms: 5, state: 'RETRIEVING', waiting_for_run_id: EARLIER };
    const failed: RetrieveOrGenerateView = { status: 'failed', output: {}, workflow_run_id: RUN, attempt_no: 1, cost_usd: 0.5, duration_ms: 9, state: 'FAILED', error_code: 'solve_failed' };
    for (const view of [succeeded, running, failed]) {
      expect(retrieveOrGenerateView.parse(view)).toEqual(view);
      expect(retrieveOrGenerateResult.parse(view)).toEqual(view);
    }
  });

  it('refuses a written view with a field it does not declare, or an unknown status', () => {
    expect(retrieveOrGenerateView.safeParse({ ...succeeded, surprise: 1 }).success).toBe(false);
    expect(retrieveOrGenerateView.safeParse({ ...succeeded, status: 'done' }).success).toBe(false);
  });

  it('reads, leniently, a view written before a field existed', () => {
    expect(retrieveOrGenerateResult.parse({ status: 'running', later_field: true })).toEqual({ status: 'running', later_field: true });
  });
});
