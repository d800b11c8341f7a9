/**
 * initialize: negotiates the protocol revision and records what the client
 * advertised, for this connection, in the capability table (which keeps a
 * small projection, never the client's object).
 */
import { of } from 'rxjs';
import { resultResponse } from '../../../lib/protocol/jsonrpc.js';
import { negotiateProtocolVersion } from '../../../lib/protocol/versions.js';
import type { MethodHandler } from '../../state/server-core.js';

export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
} as const;

export const initialize: MethodHandler = (core, scope) => {
  core.capabilities.set(scope.connId, scope.params?.capabilities, scope.principal);
  const result: Record<string, unknown> = {
    protocolVersion: negotiateProtocolVersion(scope.params?.protocolVersion),
    // 2025-11-25 tasks are a capability of their own (2026-07-28 declares the extension instead).
    capabilities: core.extensions.capabilities(core.tasks === null ? SERVER_CAPABILITIES : { ...SERVER_CAPABILITIES, tasks: core.tasks.legacyCapability() }),
    serverInfo: { name: core.options.name, version: core.options.serverVersion },
  };
  if (core.options.instructions !== undefined) result.instructions = core.options.instructions;
  return of(resultResponse(scope.id, result));
};

export const ping: MethodHandler = (_core, scope) => of(resultResponse(scope.id, {}));
