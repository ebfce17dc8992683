import { TANK_ORIGINAL } from '../testing/ingested-signatures.js';
import { documentFromIndexCommand, isTextDominant, methodOf, queryFromSignature, traceEntriesOf } from './signature-mapping.js';

const text = { normalizedText: 'solve for x: 3x+7=22', textSha256: 'a'.repeat(64), topicTags: { subject: 'algebra', keywords: ['solve for'] } };

describe('signature mapping', () => {
  it('derives text dominance as ingestion does: images only, enough text read with enough confidence', () => {
    expect(isTextDominant(text)).toBeUndefined();
    expect(isTextDominant(TANK_ORIGINAL)).toBe(true);
    expect(isTextDominant({ ...TANK_ORIGINAL, ocrConfidence: 39 })).toBe(false);
    expect(isTextDominant({ ...TANK_ORIGINAL, ocrConfidence: undefined })).toBe(false);
    expect(isTextDominant({ ...TANK_ORIGINAL, normalizedText: 'fig. 3 (a)' })).toBe(false);
  });

  it('turns a signature into the search query and an IndexDocument into a catalogue document', () => {
    expect(queryFromSignature(text)).toEqual({ normalisedText: text.normalizedText, textSha256: text.textSha256 });
    expect(queryFromSignature(TANK_ORIGINAL)).toEqual({
      normalisedText: TANK_ORIGINAL.normalizedText,
      textSha256: TANK_ORIGINAL.textSha256,
      imageSha256: TANK_ORIGINAL.imageSha256,
      phash: TANK_ORIGINAL.phash,
      phashVersion: TANK_ORIGINAL.phashVersion,
      quality: 100,
      textDominant: true,
    });
    const document = documentFromIndexCommand({ runId: 'r', problemId: 'p', assetVersionId: 'av', signature: { ...TANK_ORIGINAL, imageQuality: 87.6 } });
    expect(document).toMatchObject({ assetVersionId: 'av', problemId: 'p', quality: 88, textDominant: true, subject: 'other', keywords: [] });
  });

  it('names the method by stage, splitting the pHash stage into exact and near duplicate', () => {
    expect(methodOf('phash', 1)).toBe('exact_phash');
    expect(methodOf('phash', 0.95)).toBe('near_duplicate');
    expect(methodOf('exact_text', 0.99)).toBe('text_exact');
    expect(methodOf('hybrid', 0.84)).toBe('hybrid');
  });

  it('carries the trace by asset version, with skips spelled out', () => {
    expect(
      traceEntriesOf([
        { stage: 'exact_image', candidate: null, score: null, decision: 'skipped', reason: 'query has no image' },
        { stage: 'vector', candidate: { assetVersionId: 'av-1', problemId: 'p-1' }, score: 0.91, decision: 'accepted', reason: 'confidence 0.910 ≥ 0.850' },
      ]),
    ).toEqual([
      { stage: 'exact_image', candidate: null, score: null, accepted: false, reason: 'skipped: query has no image' },
      { stage: 'vector', candidate: 'av-1', score: 0.91, accepted: true, reason: 'confidence 0.910 ≥ 0.850' },
    ]);
  });
});
