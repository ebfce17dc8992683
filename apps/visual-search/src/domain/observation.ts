/** A face the recogniser matched, as the domain needs it. */
export interface SeenCelebrity {
  readonly celebrityId: string;
  readonly name: string;
  readonly confidence: number;
}

/** One searched image after recognition: where it came from and who is in it (largest faces first). */
export interface ImageObservation {
  readonly imageUrl: string;
  readonly sourcePageUrl?: string;
  readonly query: string;
  /** 64-bit DCT pHash, hex. */
  readonly phash: string;
  readonly celebrities: readonly SeenCelebrity[];
  /** The blob key of the photo's JPEG thumbnail, when one is stored (photos showing two or more faces). */
  readonly thumbnailKey?: string;
}

/** Where an evidence image came from and where its thumbnail is: what every evidence entry repeats of its observation. */
export function provenanceOf(o: ImageObservation): { sourcePageUrl?: string; thumbnailKey?: string } {
  return { ...(o.sourcePageUrl === undefined ? {} : { sourcePageUrl: o.sourcePageUrl }), ...(o.thumbnailKey === undefined ? {} : { thumbnailKey: o.thumbnailKey }) };
}
