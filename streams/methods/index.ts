/** The method table: every request method the server answers. */
import type { MethodHandler } from '../server-core.js';
import { complete } from './completion.js';
import { initialize, ping } from './initialize.js';
import { setLevel } from './logging.js';
import { getPrompt, listPrompts } from './prompts.js';
import { listResourceTemplates, listResources, readResource, subscribeResource, unsubscribeResource } from './resources.js';
import { callTool } from './tools-call.js';
import { listTools } from './tools-list.js';

export const METHODS: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
  ['initialize', initialize],
  ['ping', ping],
  ['tools/list', listTools],
  ['tools/call', callTool],
  ['resources/list', listResources],
  ['resources/templates/list', listResourceTemplates],
  ['resources/read', readResource],
  ['resources/subscribe', subscribeResource],
  ['resources/unsubscribe', unsubscribeResource],
  ['prompts/list', listPrompts],
  ['prompts/get', getPrompt],
  ['completion/complete', complete],
  ['logging/setLevel', setLevel],
]);

/** Methods a client may not cancel. */
export const UNCANCELLABLE = new Set(['initialize']);
