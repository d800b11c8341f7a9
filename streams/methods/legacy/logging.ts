/**
 * logging/setLevel: an unknown level is -32602 before anything else; then
 * the read gate; then the level applies to this connection's
 * notifications/message from now on.
 */
import { of } from 'rxjs';
import { invalidParams, shownValue } from '../../../lib/errors.js';
import { isLogLevel } from '../../../lib/log-levels.js';
import { resultResponse } from '../../../lib/protocol/jsonrpc.js';
import { readSurface } from '../shared/read-surface.js';
import type { MethodHandler } from '../../state/server-core.js';

export const setLevel: MethodHandler = (core, scope) => {
  const level = scope.params?.level;
  if (!isLogLevel(level)) return of(invalidParams(scope.id, `Invalid log level: ${shownValue(level)}`));
  return readSurface(core, scope, { level }, () => {
    const state = core.connections.get(scope.connId);
    if (state !== undefined) state.logLevel = level;
    return resultResponse(scope.id, {});
  });
};
