import type { ProblemSignature } from '@openpaw/contracts';

/**
 * Problem signatures exactly as the ingestion service produced them (MediaNormalized, pHash version
 * `dct64-median-dc/v1+crop-deskew-v1`), frozen here because services share contracts, not code: the
 * retrieval tests search with what ingestion really emits, without importing it. Each image is the
 * ingestion domain's `renderTextImage` of three lines (DejaVu Sans 32 px on a 900 px page), through the
 * transform named, normalised, OCR'd and hashed.
 *
 * "A tank holds 240 litres of water. / It drains at 8 litres per minute. / How long until it is empty?"
 */
const VERSION = 'dct64-median-dc/v1+crop-deskew-v1';
const TANK_TEXT = 'a tank holds 240 litres of water. it drains at 8 litres per minute. how long until it is empty?';

/** The rendered PNG itself. */
export const TANK_ORIGINAL: ProblemSignature = {
  normalizedText: TANK_TEXT,
  textSha256: '4de5a15206b4d8b60408d91e55eb15f5612123dd0dcab35c0f748ba196ca035d',
  imageSha256: 'd742a32a72ec90933584c5bb7c5ee2ed8935ef1145a145498b9bc528313a1e1c',
  phash: 'aa56a922d6abd0ad',
  phashVersion: VERSION,
  imageQuality: 100,
  ocrConfidence: 95,
  topicTags: { subject: 'other', keywords: [] },
};

/** Cropped by 5 % at the top left, then JPEG quality 30: other pixels, the same pHash after content cropping. */
export const TANK_CROPPED_JPEG: ProblemSignature = {
  ...TANK_ORIGINAL,
  imageSha256: '3954b0a973f654ab6d93e72b8217c9545db40b7466e160689f80e00cb22f9267',
};

/**
 * Quarter size, then JPEG quality 25: 4 bits from the original's pHash, and OCR noise ("drains" read as
 * "ceaing", the "8" as "b"), so neither the image nor the text is exactly the original's.
 */
export const TANK_QUARTER_JPEG: ProblemSignature = {
  normalizedText: 'a tank holds 240 litres of wate it ceaing at b litres per minute. how ong until (t is empty?',
  textSha256: '3cb67843ac555613f8018822ecdd76b162a4ed107b286a67f6f2651e4e83ce55',
  imageSha256: 'fcd0b1075fbedced63c62a12a53a6645923b3a396649d564a491c983a1a349d1',
  phash: 'aa56ad26d2a9d0ad',
  phashVersion: VERSION,
  imageQuality: 100,
  ocrConfidence: 72,
  topicTags: { subject: 'other', keywords: [] },
};

/**
 * Another problem in the same layout ("360 litres", "9 litres per minute"): its pHash is 2 bits from the
 * original's and 2 from the quarter-size copy's, closer than the copy's own original. The spec's
 * near-duplicate rule alone would serve this problem's solution for the copy.
 */
export const TANK_SIBLING: ProblemSignature = {
  normalizedText: 'a tank holds 360 litres of water. it drains at 9 litres per minute. how long until it is empty?',
  textSha256: '08f4f29363ea0d03329b51c2a89ed6990251537cd91eee11771158ddf4ceae25',
  imageSha256: '7241d11ee2751c76086f84db6e306562533de5f2c814fe2f825a9285d97eaa48',
  phash: 'aa56a926d6a9d0ad',
  phashVersion: VERSION,
  imageQuality: 100,
  ocrConfidence: 95,
  topicTags: { subject: 'other', keywords: [] },
};
