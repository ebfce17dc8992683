import sharp from 'sharp';
import { canonicalRendition } from './canonical-rendition.js';
import { normaliseImage } from './image-normalisation.js';
import { PHASH_VERSION } from './phash.js';
import { computeProblemSignature } from './problem-signature.js';
import { TEXT_NORMALISATION_VERSION } from './text-normalisation.js';
import { renderTextImage, SAMPLE_PROBLEM } from './test-support/render-text.js';

describe('computeProblemSignature', () => {
  it('signs a text problem by its normalised text', () => {
    const signature = computeProblemSignature('Solve for x:  3x + 7 = 22.');
    expect(signature).toEqual({
      normalisedText: 'solve for x: 3x+7=22',
      textSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      textNormalisationVersion: TEXT_NORMALISATION_VERSION,
      phashVersion: PHASH_VERSION,
      topicTags: { subject: 'algebra', keywords: expect.arrayContaining(['solve for']) },
      maths: expect.objectContaining({ canonical: '(= (+ (* 3 v0) 7) 22)', intent: 'solve', numbers: ['22', '3', '7'], confidence: 1 }),
      sensitivity: { sensitivity: 'standard', reasons: [] },
    });
    expect(computeProblemSignature('solve for x: 3x+7=22').textSha256).toBe(signature.textSha256);
    expect(computeProblemSignature('solve for x: 3x+7=23').textSha256).not.toBe(signature.textSha256);
  });

  it('tags the content sensitive from the raw text, before normalisation folds an e-mail address away', () => {
    expect(computeProblemSignature('Name: Jo, jo.smith@example.com. Solve 3x + 7 = 22.').sensitivity).toEqual({ sensitivity: 'sensitive', reasons: ['personal_data'] });
  });

  it('adds the image keys, pHash, quality and text dominance for an image', async () => {
    const image = await normaliseImage(await renderTextImage(SAMPLE_PROBLEM));
    const rendition = await canonicalRendition(image);
    const signature = computeProblemSignature(SAMPLE_PROBLEM.join('\n'), { image, rendition, ocrConfidence: 90 });
    expect(signature.imageSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(signature.phash).toMatch(/^[0-9a-f]{16}$/);
    expect(signature.quality).toBeGreaterThanOrEqual(90);
    expect(signature.textDominant).toBe(true);
    // Deterministic: the same pixels always give the same signature (the saga's idempotency key uses it).
    expect(computeProblemSignature(SAMPLE_PROBLEM.join('\n'), { image, rendition, ocrConfidence: 90 })).toEqual(signature);
  });

  it('calls an image with little or unreliable text not text-dominant', async () => {
    const image = await normaliseImage(await renderTextImage(['x = ?']));
    const rendition = await canonicalRendition(image);
    expect(computeProblemSignature('x = ?', { image, rendition, ocrConfidence: 95 }).textDominant).toBe(false);
    expect(computeProblemSignature(SAMPLE_PROBLEM.join(' '), { image, rendition, ocrConfidence: 10 }).textDominant).toBe(false);
  });

  it('gives a blank image quality 0 so it can never match by pHash', async () => {
    const image = await normaliseImage(await sharp({ create: { width: 100, height: 100, channels: 3, background: '#fff' } }).png().toBuffer());
    const rendition = await canonicalRendition(image);
    expect(computeProblemSignature('', { image, rendition, ocrConfidence: 0 }).quality).toBe(0);
  });
});
