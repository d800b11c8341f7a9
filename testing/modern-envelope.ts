/**
 * modernEnvelope: the `_meta` a 2026-07-28 client puts on every request (the
 * era's claim, its capabilities for this request, who it is, and the log
 * level it wants), since a modern server remembers nothing between requests.
 */
import type { LogLevel } from '../lib/log-levels.js';
import { MODERN_META, MODERN_PROTOCOL_VERSIONS } from '../lib/protocol/modern.js';

export interface EnvelopeFields {
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly logLevel: LogLevel | undefined;
}

export function modernEnvelope(fields: EnvelopeFields): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [MODERN_META.protocolVersion]: MODERN_PROTOCOL_VERSIONS[0],
    [MODERN_META.clientCapabilities]: fields.capabilities,
    [MODERN_META.clientInfo]: fields.clientInfo,
  };
  if (fields.logLevel !== undefined) meta[MODERN_META.logLevel] = fields.logLevel;
  return meta;
}
