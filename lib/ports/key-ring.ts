/**
 * The key ring that seals MRTR requestState: AES-256-GCM keys derived with
 * HKDF-SHA256 from operator secrets (the `requestStateKeys` option, each at
 * least 32 bytes). The first key seals; every key opens, so a rotation is:
 * prepend the new secret, wait out the longest state lifetime, drop the old.
 *
 * Each key has a short id (derived, not secret) that a sealed state names,
 * and its own salt for the owner tag, so nothing derived from one secret is
 * usable with another. With no secret configured, a random key is made for
 * this process on first use and a warning says so: its states die with the
 * process and no other instance can open them.
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Shortest secret accepted: 256 bits. */
export const MIN_SECRET_BYTES = 32;

const HKDF_SALT = 'rxmcp/request-state/v1';

export interface RingKey {
  /** 8 base64url characters naming the key in a sealed state. */
  readonly id: string;
  /** The AES-256-GCM key. */
  readonly aeadKey: Buffer;
  /** Keys the HMAC that turns an owner key into the tag a state carries. */
  readonly ownerSalt: Buffer;
}

export interface KeyRing {
  /** The key new states are sealed with. */
  sealing(): RingKey;
  /** The key a state names, if this ring has it. */
  find(id: string): RingKey | undefined;
  /** True when no secret was configured and the key is this process's own. */
  readonly generated: boolean;
}

function derive(secret: Uint8Array, info: string, bytes: number): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, info, bytes));
}

export function deriveRingKey(secret: Uint8Array): RingKey {
  return {
    id: derive(secret, 'rxmcp request-state key id', 6).toString('base64url'),
    aeadKey: derive(secret, 'rxmcp request-state aes-256-gcm', 32),
    ownerSalt: derive(secret, 'rxmcp request-state owner tag', 32),
  };
}

/** The tag a state carries for its owner: HMAC-SHA256 under the key's salt, 16 bytes, base64url. */
export function ownerTag(key: RingKey, owner: string): string {
  return createHmac('sha256', key.ownerSalt).update(owner, 'utf8').digest().subarray(0, 16).toString('base64url');
}

/** The bytes of a secret as the option takes it: a string as UTF-8, bytes as themselves. */
export function secretBytes(secret: string | Uint8Array): Uint8Array {
  return typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
}

class ConfiguredRing implements KeyRing {
  readonly generated = false;
  private readonly keys: readonly RingKey[];
  private readonly byId = new Map<string, RingKey>();

  constructor(secrets: readonly Uint8Array[]) {
    this.keys = secrets.map(deriveRingKey);
    for (const key of this.keys) {
      if (this.byId.has(key.id)) throw new ConfigError('requestStateKeys', 'requestStateKeys lists the same secret twice');
      this.byId.set(key.id, key);
    }
  }

  sealing(): RingKey {
    return this.keys[0] as RingKey;
  }

  find(id: string): RingKey | undefined {
    return this.byId.get(id);
  }
}

class GeneratedRing implements KeyRing {
  readonly generated = true;
  private key: RingKey | undefined;

  constructor(private readonly logger: Logger) {}

  sealing(): RingKey {
    if (this.key === undefined) {
      this.key = deriveRingKey(randomBytes(MIN_SECRET_BYTES));
      this.logger.warn(
        { option: 'requestStateKeys' },
        'requestStateKeys is not set: MRTR requestState (approval tickets, handler state) is sealed with a key made for this process only. ' +
          'Those states die with the process and no other instance can open them. Set requestStateKeys (secrets of at least 32 bytes) ' +
          'for anything beyond development or a single process.',
      );
    }
    return this.key;
  }

  find(id: string): RingKey | undefined {
    // Before the first seal there is no key, and nothing sealed to open.
    return this.key !== undefined && this.key.id === id ? this.key : undefined;
  }
}

/**
 * The ring for `secrets` (already validated: each at least 32 bytes), or,
 * when there are none, a per-process key made on first use with a warning
 * through `logger`.
 */
export function createKeyRing(secrets: readonly Uint8Array[], logger: Logger): KeyRing {
  return secrets.length === 0 ? new GeneratedRing(logger) : new ConfiguredRing(secrets);
}
