import { MediaNormalized } from '@openpaw/contracts';
import { computeProblemSignature } from '../domain/problem-signature.js';
import { normalizedMediaKey, toContractSignature } from './contract-signature.js';

describe('toContractSignature', () => {
  it('spells the domain signature as the contract does and satisfies its schema', () => {
    const domain = { ...computeProblemSignature('Find the derivative of f(x) = x³'), imageSha256: 'b'.repeat(64), phash: '0123456789abcdef', quality: 97.5 };
    const signature = toContractSignature(domain, 104);
    expect(signature).toEqual({
      normalizedText: 'find the derivative of f(x)=x^3',
      textSha256: domain.textSha256,
      imageSha256: 'b'.repeat(64),
      phash: '0123456789abcdef',
      phashVersion: domain.phashVersion,
      imageQuality: 97.5,
      ocrConfidence: 100,
      topicTags: { subject: 'calculus', keywords: [...domain.topicTags.keywords] },
      maths: {
        version: 'maths-sig/v11',
        hash: domain.maths?.hash,
        canonical: '(= (^ v0 3) (f v0))',
        intent: 'differentiate',
        numbers: ['3'],
        unknowns: ['x'],
        confidence: 1,
      },
    });
    const data = { runId: '5b0e7a4c-2a43-4f0e-9b7e-0c6f2d9a1b11', commandId: 'c', mediaType: 'image', signature, normalizedMediaKey: normalizedMediaKey('b'.repeat(64)) };
    expect(MediaNormalized.schema.safeParse(data).success).toBe(true);
  });

  it('carries a sensitive tag with its reasons (and nothing for standard content)', () => {
    const signature = toContractSignature(computeProblemSignature('Candidate number 4821. Solve 3x - 4 = 11'));
    expect(signature).toMatchObject({ contentSensitivity: 'sensitive', sensitivityReasons: ['exam_paper'] });
    expect(MediaNormalized.schema.shape.signature.safeParse(signature).success).toBe(true);
  });

  it('leaves the image fields out for a typed text', () => {
    expect(Object.keys(toContractSignature(computeProblemSignature('2x + 3 = 7'))).sort()).toEqual(['maths', 'normalizedText', 'textSha256', 'topicTags']);
    expect(Object.keys(toContractSignature(computeProblemSignature('a train travels 60 km')))).not.toContain('maths');
  });
});
