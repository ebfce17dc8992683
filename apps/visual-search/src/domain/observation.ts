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
}
