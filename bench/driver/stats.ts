/** Order statistics for latencies and for medians across rounds. */

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** The median of the defined values; undefined when there are none. */
export function median(values: readonly (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (defined.length === 0) return undefined;
  const middle = Math.floor(defined.length / 2);
  return defined.length % 2 === 1 ? defined[middle] : ((defined[middle - 1] as number) + (defined[middle] as number)) / 2;
}
