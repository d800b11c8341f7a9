/**
 * An upper estimate of the heap a parsed JSON value holds, for bounds on
 * what the server keeps. The wire size says little: 3 bytes of `{},` are an
 * object of some 60 bytes once parsed. The estimate charges every object,
 * array, string and number what V8 spends on it at most (a string two bytes
 * a character, as if it were two-byte), so a value it calls small is small.
 *
 * The walk is iterative (a client can nest arrays a million deep) and stops
 * as soon as the total passes `limit`, so its cost is bounded by the limit,
 * not by the value.
 */

/** Object header and hidden-class share, per object or array. */
const CONTAINER_BYTES = 64;
/** One property: its slot, its descriptor share and its key's header. */
const PROPERTY_BYTES = 40;
/** One array element slot. */
const ELEMENT_BYTES = 8;
/** A string's header. */
const STRING_BYTES = 24;
/** A boxed number, or the slot of a boolean or null. */
const SCALAR_BYTES = 16;

const stringBytes = (value: string): number => STRING_BYTES + 2 * value.length;

/**
 * The estimated heap size of `value`, or the first running total past `limit`
 * (so "retainedSize(v, limit) > limit" says "too big" without walking all of v).
 */
export function retainedSize(value: unknown, limit: number): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= limit) {
    const next = pending.pop();
    if (typeof next === 'string') {
      total += stringBytes(next);
    } else if (Array.isArray(next)) {
      total += CONTAINER_BYTES + ELEMENT_BYTES * next.length;
      // The slots are charged first, so a huge array stops the walk before its items are visited.
      for (let i = 0; i < next.length && total <= limit; i += 1) {
        const item: unknown = next[i];
        if (typeof item === 'object' && item !== null) pending.push(item);
        else total += scalarBytes(item);
      }
    } else if (typeof next === 'object' && next !== null) {
      total += CONTAINER_BYTES;
      for (const key in next) {
        if (!Object.hasOwn(next, key)) continue;
        total += PROPERTY_BYTES + 2 * key.length;
        const item: unknown = (next as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) pending.push(item);
        else total += scalarBytes(item);
        if (total > limit) break;
      }
    } else {
      total += scalarBytes(next);
    }
  }
  return total;
}

function scalarBytes(value: unknown): number {
  return typeof value === 'string' ? stringBytes(value) : SCALAR_BYTES;
}
