/**
 * "Did you mean" for a mistyped option name: `elicitationTimeout` is one edit
 * pass from `elicitationTimeoutMs`, and saying so saves a trip to the docs.
 * The nearest known name by edit distance (Levenshtein), offered only when it
 * is near enough to be the likely intent.
 */

/** Edits (insert, delete, substitute one character) from `a` to `b`, case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitution = previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[y.length]!;
}

/** The known name nearest `name`, when it is at most a third of the longer name's length away (and at least 1 edit). */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(name.length, best.length) / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** `unknown option <name>`, with `; did you mean <nearest>?` when one is near. */
export function unknownOptionMessage(name: string, known: Iterable<string>, prefix = ''): string {
  const nearest = nearestName(name, known);
  return nearest === undefined ? `unknown option ${prefix}${name}` : `unknown option ${prefix}${name}; did you mean ${prefix}${nearest}?`;
}
