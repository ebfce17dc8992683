import type { ResearchView } from '@openpaw/contracts';
import { showSynthesisNotAvailable, uiOf } from './research.schemas.js';

const leg = (provider: 'openai' | 'anthropic', status: 'pending' | 'processing' | 'completed' | 'failed') => ({
  provider,
  status,
  model: null,
  result: status === 'completed' ? 'report' : null,
  truncated: false,
  local: false,
  error: status === 'failed' ? 'HTTP 500' : null,
  errorReason: status === 'failed' ? ('server_error' as const) : null,
  round: 1,
  startedAt: null,
  completedAt: null,
  durationMs: null,
  costUsd: 0,
});

function view(over: Partial<ResearchView>): ResearchView {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    status: 'processing',
    title: 't',
    titleSource: 'fallback',
    prompt: 'p',
    selectedLlms: ['openai', 'anthropic'],
    synthesisLlm: 'local',
    externalReports: [],
    llmResults: [leg('openai', 'completed'), leg('anthropic', 'processing')],
    synthesizedResult: null,
    synthesisModel: null,
    synthesisAttributions: [],
    synthesisSkipped: false,
    synthesisError: null,
    partialFailure: null,
    retryCount: 0,
    shareInfo: null,
    error: null,
    errorKind: null,
    costUsd: 0,
    startedAt: null,
    completedAt: null,
    ...over,
  };
}

describe('status → UI mapping (spec 05)', () => {
  it.each([
    ['draft', view({ status: 'draft' }), 'edit_form', ['start']],
    ['processing', view({}), 'progress_per_llm', ['cancel']],
    ['synthesizing', view({ status: 'synthesizing' }), 'synthesizing', ['cancel']],
    ['retrying', view({ status: 'retrying' }), 'retrying', ['cancel']],
    ['awaiting_confirmation', view({ status: 'awaiting_confirmation', partialFailure: { failedProviders: ['anthropic'], detectedAt: 'now', retryCount: 0 } }), 'confirm_dialog', ['proceed', 'retry', 'cancel']],
    ['completed with synthesis', view({ status: 'completed', synthesizedResult: 'both agree', llmResults: [leg('openai', 'completed'), leg('anthropic', 'completed')] }), 'synthesis_and_reports', []],
    ['completed without synthesis', view({ status: 'completed', llmResults: [leg('openai', 'completed'), leg('anthropic', 'failed')] }), 'synthesis_not_available', []],
    ['failed', view({ status: 'failed', error: 'All LLM calls failed', errorKind: 'all_failed' }), 'error', ['retry']],
    ['failed, cancelled by user', view({ status: 'failed', error: 'Cancelled by user', errorKind: 'cancelled' }), 'error', ['create_new']],
    ['failed, max retries', view({ status: 'failed', error: 'Max retries exceeded', errorKind: 'max_retries', retryCount: 2 }), 'error', ['create_new']],
  ] as const)('%s', (_, v, card, actions) => {
    expect(uiOf(v)).toMatchObject({ card, actions });
  });

  it('names a rejected key at the gate: update your key, then retry', () => {
    const rejected = { ...leg('anthropic', 'failed'), error: 'HTTP 401', errorReason: 'auth' as const };
    const gate = view({ status: 'awaiting_confirmation', llmResults: [leg('openai', 'completed'), rejected], partialFailure: { failedProviders: ['anthropic'], detectedAt: 'now', retryCount: 0 } });
    expect(uiOf(gate).message).toBe('anthropic failed. anthropic rejected the API key: update your key, then retry. Proceed with the successful results, retry the failed providers, or cancel.');
    expect(uiOf(view({ status: 'awaiting_confirmation', llmResults: [leg('openai', 'completed'), leg('anthropic', 'failed')] })).message).not.toContain('key');
  });

  it('shows "Synthesis not available" exactly per the spec’s condition', () => {
    const single = view({ status: 'completed', llmResults: [leg('openai', 'completed'), leg('anthropic', 'failed')] });
    expect(showSynthesisNotAvailable(single)).toBe(true);
    expect(showSynthesisNotAvailable({ ...single, externalReports: [{ title: null, characters: 10 }] })).toBe(false);
    expect(showSynthesisNotAvailable({ ...single, synthesizedResult: 'x' })).toBe(false);
    expect(showSynthesisNotAvailable({ ...single, status: 'failed' })).toBe(false);
  });
});
