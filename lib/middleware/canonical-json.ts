/**
 * canonicalJson: JSON with every object's keys in sorted order, so two
 * argument objects that differ only in key order give the same text (and
 * the same cache key). Arrays keep their order.
 */
function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort()) {
    // defineProperty, so a key named __proto__ stays a key and never becomes the prototype.
    Object.defineProperty(sorted, key, { value: source[key], enumerable: true, writable: true, configurable: true });
  }
  return sorted;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortKeys);
}
