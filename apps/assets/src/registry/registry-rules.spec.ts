import type { ProblemSignature } from '@openpaw/contracts';
import { assetVersionIdFor, nextVersion, problemIdFor, signatureKeyOf, videoKeyFor } from './registry-rules.js';

const signature: ProblemSignature = {
  normalizedText: '2x + 3 = 7',
  textSha256: 'a'.repeat(64),
  imageSha256: 'b'.repeat(64),
  topicTags: { subject: 'algebra', keywords: [] },
};

describe('version numbering', () => {
  it('starts at 1 and counts up per problem and asset type', () => {
    expect(nextVersion(undefined)).toBe(1);
    expect(nextVersion(null)).toBe(1);
    expect(nextVersion(1)).toBe(2);
    expect(nextVersion(41)).toBe(42);
  });

  it('refuses a latest version that cannot exist', () => {
    expect(() => nextVersion(0)).toThrow(/invalid latest version/);
    expect(() => nextVersion(1.5)).toThrow(/invalid latest version/);
  });
});

describe('problem identity', () => {
  it('is the normalised text when there is text, so two photos of one problem are one problem', () => {
    expect(signatureKeyOf(signature)).toBe(`text:${'a'.repeat(64)}`);
    expect(signatureKeyOf({ ...signature, imageSha256: 'c'.repeat(64) })).toBe(signatureKeyOf(signature));
  });

  it('is the image when there is no text', () => {
    expect(signatureKeyOf({ ...signature, normalizedText: '  ' })).toBe(`image:${'b'.repeat(64)}`);
  });

  it('refuses a signature with neither', () => {
    const { imageSha256: _omitted, ...textOnly } = signature;
    expect(() => signatureKeyOf({ ...textOnly, normalizedText: '' })).toThrow(/neither/);
  });

  it('derives stable ids: one problem per signature key, one version per run and type', () => {
    expect(problemIdFor('text:x')).toBe(problemIdFor('text:x'));
    expect(problemIdFor('text:x')).not.toBe(problemIdFor('text:y'));
    const run = '0b9d2c1e-0000-4000-8000-000000000001';
    expect(assetVersionIdFor(run, 'video')).not.toBe(assetVersionIdFor(run, 'solution_html'));
    expect(videoKeyFor('abc')).toBe('videos/abc.mp4');
  });
});
