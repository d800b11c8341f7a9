/**
 * The modern method table (2026-07-28): what a modern request may call.
 * Everything else is -32601, the removed legacy methods included
 * (initialize, ping, logging/setLevel, resources/subscribe and
 * resources/unsubscribe, whose job subscriptions/listen does). The shared handlers are the legacy ones: what
 * differs by era lives in the era decision, the client channel, the input
 * stage and the reply encoding, never in a handler.
 */
import { complete } from '../methods/completion.js';
import { getPrompt, listPrompts } from '../methods/prompts.js';
import { listResourceTemplates, listResources, readResource } from '../methods/resources.js';
import { callTool } from '../methods/tools-call.js';
import { listTools } from '../methods/tools-list.js';
import { listen } from '../methods/subscriptions-listen.js';
import type { MethodHandler } from '../server-core.js';
import { discover } from './discover.js';

export const MODERN_METHODS: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
  ['server/discover', discover],
  ['tools/list', listTools],
  ['tools/call', callTool],
  ['resources/list', listResources],
  ['resources/templates/list', listResourceTemplates],
  ['resources/read', readResource],
  ['prompts/list', listPrompts],
  ['prompts/get', getPrompt],
  ['completion/complete', complete],
  ['subscriptions/listen', listen],
]);
