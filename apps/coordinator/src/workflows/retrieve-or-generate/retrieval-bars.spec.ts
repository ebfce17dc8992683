import { DEFAULT_POLICY_CONFIG, type ExecutionPolicy } from '../policy/index.js';
import { acceptanceBar, mathsSignatureBarOf } from './retrieval-bars.js';

const policy = (override: Partial<ExecutionPolicy>): ExecutionPolicy => ({ ...DEFAULT_POLICY_CONFIG.defaults, ...override });

describe('the maths-signature bar', () => {
  it('given the policy sets maths_signature_threshold, then a maths hit is held to it, not to retrieval_threshold', () => {
    const confidence = 0.9;
    expect(confidence >= acceptanceBar('maths_signature', policy({ retrieval_threshold: 0.85, maths_signature_threshold: 0.8 }))).toBe(true);
    expect(confidence >= acceptanceBar('maths_signature', policy({ retrieval_threshold: 0.85, maths_signature_threshold: 0.95 }))).toBe(false);
    expect(acceptanceBar('vector', policy({ retrieval_threshold: 0.85, maths_signature_threshold: 0.95 }))).toBe(0.85);
  });

  it('given no maths_signature_threshold, then maths hits are held to retrieval_threshold', () => {
    expect(mathsSignatureBarOf(policy({ retrieval_threshold: 0.88 }))).toBe(0.88);
  });
});
