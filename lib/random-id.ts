/**
 * randomId: an unguessable id with a readable prefix. Used wherever knowing
 * an id would be power: connection ids (an elicitation is bound to one),
 * elicitation and server-to-client request ids (whoever knows one could try
 * to answer it). 18 random bytes, base64url.
 */
export function randomId(prefix: string): string {
  const bytes = new Uint8Array(18);
  globalThis.crypto.getRandomValues(bytes);
  return `${prefix}${Buffer.from(bytes).toString('base64url')}`;
}
