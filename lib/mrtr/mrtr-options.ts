/**
 * Validation of the MRTR options (`requestStateKeys`, `maxRequestStateBytes`,
 * `askWithoutElicitation`);
 * lib/options.ts calls these, so a bad value refuses to start with a
 * ConfigError naming the option.
 */
import { ConfigError } from '../errors.js';
import { MIN_SECRET_BYTES, secretBytes } from '../ports/key-ring.js';

/** More keys than this is a ring nobody rotates. */
export const MAX_REQUEST_STATE_KEYS = 16;
/** An approval ticket seals to about 400 bytes: a smaller cap would refuse every one. */
export const MIN_REQUEST_STATE_BYTES = 512;
export const MAX_REQUEST_STATE_BYTES = 1024 * 1024;

/** The secrets as bytes (copied), first the sealing one; empty when unset (a per-process key is made, with a warning). */
export function resolveRequestStateKeys(value: unknown): readonly Uint8Array[] {
  if (value === undefined) return [];
  const option = 'requestStateKeys';
  if (!Array.isArray(value)) throw new ConfigError(option, `${option} must be an array of secrets (strings or Uint8Arrays)`);
  if (value.length === 0) throw new ConfigError(option, `${option} must list at least one secret (leave it unset for a per-process key)`);
  if (value.length > MAX_REQUEST_STATE_KEYS) throw new ConfigError(option, `${option} may list at most ${MAX_REQUEST_STATE_KEYS} secrets`);
  const keys = value.map((secret: unknown, i) => {
    if (typeof secret !== 'string' && !(secret instanceof Uint8Array)) {
      throw new ConfigError(option, `${option}[${i}] must be a string or a Uint8Array`);
    }
    const bytes = secretBytes(secret);
    if (bytes.length < MIN_SECRET_BYTES) {
      throw new ConfigError(option, `${option}[${i}] must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes.length}); use e.g. 32 random bytes`);
    }
    return Uint8Array.from(bytes);
  });
  const seen = new Set(keys.map((k) => Buffer.from(k).toString('base64')));
  if (seen.size !== keys.length) throw new ConfigError(option, `${option} lists the same secret twice`);
  return keys;
}

export function resolveMaxRequestStateBytes(value: unknown): number {
  if (value === undefined) return 4096;
  const option = 'maxRequestStateBytes';
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < MIN_REQUEST_STATE_BYTES || value > MAX_REQUEST_STATE_BYTES) {
    throw new ConfigError(
      option,
      `${option} must be an integer from ${MIN_REQUEST_STATE_BYTES} to ${MAX_REQUEST_STATE_BYTES}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** What a modern tools/call gets when its authorizer asks and the request declared no (form) elicitation. */
export type AskWithoutElicitation = 'missing-capability' | 'deny';
const ASK_WITHOUT_ELICITATION: readonly AskWithoutElicitation[] = ['missing-capability', 'deny'];

export function resolveAskWithoutElicitation(value: unknown): AskWithoutElicitation {
  if (value === undefined) return 'missing-capability';
  if (!ASK_WITHOUT_ELICITATION.includes(value as AskWithoutElicitation)) {
    const option = 'askWithoutElicitation';
    throw new ConfigError(option, `${option} must be "missing-capability" or "deny", got ${JSON.stringify(value)}`);
  }
  return value as AskWithoutElicitation;
}
