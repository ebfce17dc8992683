export function percentile(sortedAscending: readonly number[], p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.min(sortedAscending.length - 1, Math.max(0, Math.ceil((p / 100) * sortedAscending.length) - 1));
  return sortedAscending[rank] ?? Number.NaN;
}

export interface LatencySummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export function summarise(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return {
    count: sorted.length,
    meanMs: mean,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export function formatLatency(label: string, s: LatencySummary): string {
  const f = (v: number): string => (v < 1 ? v.toFixed(4) : v.toFixed(2));
  return `${label.padEnd(34)} n=${s.count}  mean=${f(s.meanMs)}ms  p50=${f(s.p50Ms)}ms  p95=${f(s.p95Ms)}ms  p99=${f(s.p99Ms)}ms  max=${f(s.maxMs)}ms`;
}
