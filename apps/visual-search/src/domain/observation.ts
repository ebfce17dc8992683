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

/**
 * Where an evidence image came from, where its thumbnail is and who it shows: what every evidence entry
 * repeats of its observation. `shows` lets a takedown of anyone in the photo (a third person beside the
 * edge's two) find it in a finished run.
 */
export function provenanceOf(o: ImageObservation): { sourcePageUrl?: string; thumbnailKey?: string; shows: string[] } {
  return {
    ...(o.sourcePageUrl === undefined ? {} : { sourcePageUrl: o.sourcePageUrl }),
    ...(o.thumbnailKey === undefined ? {} : { thumbnailKey: o.thumbnailKey }),
    shows: [...new Set(o.celebrities.map((c) => c.celebrityId))],
  };
}
