/**
 * randomId: an unguessable id with a readable prefix. Used wherever knowing
 * an id would be power: connection ids (an elicitation is bound to one),
 * elicitation and server-to-client request ids (whoever knows one could try
 * to answer it). 18 random bytes, base64url.
 *
 * The bytes come from a pool filled by the CSPRNG 512 ids at a time: one
 * getRandomValues call costs about as much as ten ids' worth of encoding,
 * and a stateless transport mints an id per request. Every id takes bytes
 * no other id took; the pool holds randomness only, no server's state.
 */
const ID_BYTES = 18;
const POOL_IDS = 512;
const pool = Buffer.allocUnsafe(ID_BYTES * POOL_IDS);
let next = pool.length;

export function randomId(prefix: string): string {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const start = next;
  next += ID_BYTES;
  return `${prefix}${pool.toString('base64url', start, next)}`;
}
