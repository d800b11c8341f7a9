/**
 * The checks every registered definition passes, whoever registers it (a
 * call or a binding): a TypeError naming what is missing, thrown before the
 * registry changes.
 */

export function requireName(kind: string, value: unknown, field = 'name'): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${kind} needs a non-empty string ${field}`);
  }
}

export function requireFunction(kind: string, name: string, value: unknown, field: string): void {
  if (typeof value !== 'function') throw new TypeError(`${kind} ${name} needs a ${field} function`);
}
