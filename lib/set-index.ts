/**
 * An index of sets by key (holder -> tickets, peer -> holds, URI -> listen
 * streams): a key is present only while its set is non-empty, so an index
 * never keeps an empty set for a holder, peer or URI that is gone.
 */

/** Adds `value` under `key`, making the key's set on first use. */
export function addToIndex<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  let set = index.get(key);
  if (set === undefined) {
    set = new Set();
    index.set(key, set);
  }
  set.add(value);
}

/** Removes `value` from under `key`; the key goes with its last value. */
export function removeFromIndex<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (set === undefined || !set.delete(value)) return;
  if (set.size === 0) index.delete(key);
}
