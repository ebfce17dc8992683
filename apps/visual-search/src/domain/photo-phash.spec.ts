import { generateVisualWorld, renderWorldPhoto } from '@openpaw/providers';
import sharp from 'sharp';
import { findNearDuplicate, hammingDistance, photoPhash } from './photo-phash.js';

describe('photo pHash dedup', () => {
  it('finds the same photo re-encoded and resized (another query found it) and keeps different photos apart', async () => {
    const world = generateVisualWorld({ seed: 7 });
    const photos = await Promise.all(world.photos.slice(0, 12).map((p) => renderWorldPhoto(p)));
    const hashes = await Promise.all(photos.map((p) => photoPhash(p)));
    const copy = await sharp(photos[3]).resize(300).jpeg({ quality: 55 }).toBuffer();
    const copyHash = await photoPhash(copy);
    expect(hammingDistance(copyHash, hashes[3]!)).toBeLessThanOrEqual(6);
    expect(findNearDuplicate(copyHash, hashes)).toBe(hashes[3]);
    for (let i = 0; i < hashes.length; i += 1) {
      for (let j = i + 1; j < hashes.length; j += 1) expect(hammingDistance(hashes[i]!, hashes[j]!)).toBeGreaterThan(6);
    }
    expect(findNearDuplicate(hashes[0]!, hashes.slice(1))).toBeUndefined();
  });
});
