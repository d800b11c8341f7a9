/**
 * Canonical JSON of a client's arguments, and digests of it, so a sealed
 * requestState can be bound to "these arguments" (and a cache keyed by them)
 * whatever order the client writes their keys in.
 *
 * Object keys sorted (by UTF-16 code units, as JSON Canonicalization Scheme
 * does), no whitespace, numbers and strings as JSON.stringify writes them.
 * Arguments are hostile: depth and output size are bounded and a value JSON
 * cannot hold (a function, a BigInt, a non-finite number, a cycle, a class
 * instance) makes the whole thing null rather than a guess. Nothing on the
 * value is called: no toJSON, no getters (only own enumerable data
 * properties of plain objects are read).
 */
import { createHash } from 'node:crypto';

export interface CanonicalLimits {
  /** Nesting of arrays and objects; deeper is refused. */
  readonly maxDepth: number;
  /** Characters of output; longer is refused. */
  readonly maxChars: number;
}

export const DEFAULT_CANONICAL_LIMITS: CanonicalLimits = { maxDepth: 64, maxChars: 1024 * 1024 };

class Refused extends Error {}

class Writer {
  private readonly parts: string[] = [];
  private chars = 0;

  constructor(private readonly limits: CanonicalLimits) {}

  write(part: string): void {
    this.chars += part.length;
    if (this.chars > this.limits.maxChars) throw new Refused();
    this.parts.push(part);
  }

  value(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        return this.write(JSON.stringify(value));
      case 'boolean':
        return this.write(value ? 'true' : 'false');
      case 'number':
        if (!Number.isFinite(value)) throw new Refused();
        return this.write(JSON.stringify(value));
      case 'object':
        if (value === null) return this.write('null');
        if (depth >= this.limits.maxDepth) throw new Refused();
        return Array.isArray(value) ? this.array(value, depth + 1) : this.object(value, depth + 1);
      default:
        throw new Refused();
    }
  }

  private array(items: readonly unknown[], depth: number): void {
    this.write('[');
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.write(',');
      const descriptor = Object.getOwnPropertyDescriptor(items, i);
      // A hole or an accessor is not JSON data.
      if (descriptor === undefined || !('value' in descriptor)) throw new Refused();
      this.value(descriptor.value, depth);
    }
    this.write(']');
  }

  private object(value: object, depth: number): void {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) throw new Refused();
    const keys = Object.keys(value).sort();
    this.write('{');
    let first = true;
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined || !('value' in descriptor)) throw new Refused();
      // As JSON.stringify: a property whose value is undefined is absent.
      if (descriptor.value === undefined) continue;
      if (!first) this.write(',');
      first = false;
      this.write(JSON.stringify(key));
      this.write(':');
      this.value(descriptor.value, depth);
    }
    this.write('}');
  }

  text(): string {
    return this.parts.join('');
  }
}

/** The canonical JSON text of `value`, or null when it is not plain JSON data within `limits`. */
export function canonicalJson(value: unknown, limits: CanonicalLimits = DEFAULT_CANONICAL_LIMITS): string | null {
  const writer = new Writer(limits);
  try {
    writer.value(value, 0);
  } catch {
    // Refused, or a Proxy's trap threw: either way not plain data.
    return null;
  }
  return writer.text();
}

/** SHA-256 of UTF-8 `text`, first 16 bytes, base64url (22 characters). */
export function shortDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest().subarray(0, 16).toString('base64url');
}

/**
 * The digest a requestState binds for a request's arguments; absent
 * arguments digest as `{}`, as a tools/call without them runs with `{}`.
 * null when the arguments are not canonicalisable within `limits`.
 */
export function argumentsDigest(args: unknown, limits: CanonicalLimits = DEFAULT_CANONICAL_LIMITS): string | null {
  const text = canonicalJson(args === undefined ? {} : args, limits);
  return text === null ? null : shortDigest(text);
}
