import { evidenceThumbnailParams, thumbnailsOf } from './evidence-thumbnails.js';

const at = '2026-11-27T14:00:00.000Z';

describe('evidence thumbnails a run shows', () => {
  it('are its evidence cards’ and its final edges’ thumbnails, nothing else', () => {
    const view = {
      events: [
        { seq: 1, type: 'status', at, data: { message: 'searching', thumbnail: 'aaaaaaaaaaaaaaaa' } },
        { seq: 2, type: 'evidence', at, data: { from: 'A', to: 'B', thumbnail: '0123456789abcdef' } },
        { seq: 3, type: 'evidence', at, data: { from: 'B', to: 'C', thumbnail: null } },
        { seq: 4, type: 'final', at, data: { edges: [{ evidence: [{ thumbnail: 'fedcba9876543210' }, { thumbnail: null }] }] } },
      ],
    };
    expect([...thumbnailsOf(view)].sort()).toEqual(['0123456789abcdef', 'fedcba9876543210']);
    expect(thumbnailsOf({}).size).toBe(0);
  });

  it('are asked for by a 16-hex-digit id; anything else is refused naming the parameter', () => {
    const id = '8a0f7a5e-2b1c-4c1e-9a55-3c3c9d1f8a10';
    expect(evidenceThumbnailParams.safeParse({ id, thumbnail: '0123456789abcdef' }).success).toBe(true);
    const refused = evidenceThumbnailParams.safeParse({ id, thumbnail: '../secret' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['thumbnail']);
  });
});
