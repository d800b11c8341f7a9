/**
 * The method tables: every request method the server answers, per era, side
 * by side, and what else differs between the eras once a request's era is
 * decided (stages/decide-era.ts): which methods a client may not cancel, and how
 * a reply is shaped for the wire. Read by route (stages/route.ts).
 *
 * The shared handlers (methods/shared/) serve both eras: what differs by era
 * lives in the era decision, the client channel, the input stage and the
 * reply encoding, never in a handler. The modern table (2026-07-28) lacks the
 * legacy-only methods on purpose (initialize, ping, logging/setLevel,
 * resources/subscribe and resources/unsubscribe, whose job
 * subscriptions/listen does): a modern request for one is -32601.
 */
import type { Era } from '../../lib/protocol/modern.js';
import { encodeModernReply } from '../modern/encode.js';
import type { MethodHandler, ReplyEncoder } from '../state/server-core.js';
import { initialize, ping } from './legacy/initialize.js';
import { setLevel } from './legacy/logging.js';
import { discover } from './modern/discover.js';
import { listen } from './modern/subscriptions-listen.js';
import { complete } from './shared/completion.js';
import { getPrompt, listPrompts } from './shared/prompts.js';
import { listResourceTemplates, listResources, readResource, subscribeResource, unsubscribeResource } from './shared/resources.js';
import { callTool } from './shared/tools-call.js';
import { listTools } from './shared/tools-list.js';

/** 2024-11-05 ... 2025-11-25. */
export const LEGACY_METHODS: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
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

/** 2026-07-28. */
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

export interface EraWire {
  readonly methods: ReadonlyMap<string, MethodHandler>;
  /** Methods a client may not cancel. */
  readonly uncancellable: ReadonlySet<string>;
  /** The reply as this era's wire has it; null when the legacy shape is the wire's. */
  readonly encode: ReplyEncoder | null;
}

export const ERAS: Readonly<Record<Era, EraWire>> = {
  legacy: { methods: LEGACY_METHODS, uncancellable: new Set(['initialize']), encode: null },
  modern: { methods: MODERN_METHODS, uncancellable: new Set(), encode: encodeModernReply },
};
