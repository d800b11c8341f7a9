/**
 * server/discover (2026-07-28, MUST): the revisions this server serves (the
 * modern ones only: a legacy client learns its versions from initialize), its
 * capabilities and instructions. Not read-gated, like initialize; cache
 * hints, resultType and serverInfo are added by encode.ts.
 *
 * The capabilities say what modern requests really get: `listChanged` and
 * `subscribe` are what `subscriptions/listen` honours (change notifications
 * travel only on listen streams in this era), and a listen filter is
 * narrowed against exactly these.
 */
import { of } from 'rxjs';
import { resultResponse } from '../../../lib/protocol/jsonrpc.js';
import { MODERN_PROTOCOL_VERSIONS } from '../../../lib/protocol/modern.js';
import { SERVER_CAPABILITIES } from '../legacy/initialize.js';
import type { MethodHandler } from '../../state/server-core.js';

/**
 * The same set initialize advertises: one server, two eras. On this wire
 * `listChanged` and `resources.subscribe` mean what subscriptions/listen
 * honours (its filter is narrowed against exactly these).
 */
export const MODERN_SERVER_CAPABILITIES = SERVER_CAPABILITIES;

export const discover: MethodHandler = (core, scope) => {
  const result: Record<string, unknown> = {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: core.extensions.capabilities(MODERN_SERVER_CAPABILITIES),
  };
  if (core.options.instructions !== undefined) result.instructions = core.options.instructions;
  return of(resultResponse(scope.id, result));
};
