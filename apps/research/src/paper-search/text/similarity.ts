/**
 * Normalised Levenshtein similarity of two strings: 1 - distance / max(length), in [0, 1]. Two-row
 * dynamic programme; `atLeast` lets a caller stop early when the pair cannot reach its threshold.
 */
export function levenshteinSimilarity(a: string, b: string, atLeast = 0): number {
  if (a === b) return 1;
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  const maxDistance = Math.floor((1 - atLeast) * longest);
  if (Math.abs(a.length - b.length) > maxDistance) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > maxDistance) return 0;
    [previous, current] = [current, previous];
  }
  return 1 - (previous[b.length] ?? longest) / longest;
}
