/**
 * The subscriptions/listen filter: what a client asked for (checked, so a
 * bad filter is -32602 before anything is kept), and the subset this server
 * honours (what its capabilities declare, and for resources/updated only the
 * URIs it serves). The honoured subset is what the acknowledgement echoes and
 * all the listen stream ever delivers.
 *
 * Bounds: at most `maxUris` URIs in one filter (after removing duplicates),
 * each at most `maxUriLength` characters; an array longer than `maxUris`
 * before deduplication is refused without looking at its items.
 */
import { isPlainObject } from '../lib/protocol/jsonrpc.js';

export interface ListenFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
  /** Tasks whose status changes the stream carries as notifications/tasks (the tasks extension). */
  readonly taskIds?: readonly string[];
}

/** Longest task id a filter may name. */
const MAX_TASK_ID_LENGTH = 256;

/** The part of the server's capabilities a listen filter is narrowed against. */
export interface ListenCapabilities {
  readonly tools?: { readonly listChanged?: boolean };
  readonly prompts?: { readonly listChanged?: boolean };
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean };
}

export interface ListenFilterBounds {
  readonly maxUris: number;
  readonly maxUriLength: number;
}

export type ParsedFilter =
  | { readonly ok: true; readonly filter: ListenFilter }
  | { readonly ok: false; readonly message: string; readonly data?: Record<string, unknown> };

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;

function refused(message: string, data?: Record<string, unknown>): ParsedFilter {
  return data === undefined ? { ok: false, message } : { ok: false, message, data };
}

/** `params.notifications`, checked; unknown fields (an extension's) are left out, not refused. */
export function parseListenFilter(params: Record<string, unknown> | undefined, bounds: ListenFilterBounds): ParsedFilter {
  const requested = params?.notifications;
  if (!isPlainObject(requested)) return refused('subscriptions/listen requires a notifications object');
  const filter: { -readonly [K in keyof ListenFilter]: ListenFilter[K] } = {};
  for (const flag of FLAGS) {
    const value = requested[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') return refused(`notifications.${flag} must be a boolean`);
    filter[flag] = value;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris)) return refused('notifications.resourceSubscriptions must be an array of strings');
    if (uris.length > bounds.maxUris) {
      return refused(`notifications.resourceSubscriptions has more than ${bounds.maxUris} URIs`, { maxSubscriptionsPerConnection: bounds.maxUris });
    }
    const unique = new Set<string>();
    for (const uri of uris) {
      if (typeof uri !== 'string') return refused('notifications.resourceSubscriptions must be an array of strings');
      if (uri.length > bounds.maxUriLength) {
        return refused(`notifications.resourceSubscriptions has a URI longer than ${bounds.maxUriLength} characters`, {
          maxSubscriptionUriLength: bounds.maxUriLength,
        });
      }
      unique.add(uri);
    }
    filter.resourceSubscriptions = [...unique];
  }
  const taskIds = requested.taskIds;
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || taskIds.length > bounds.maxUris) {
      return refused(`notifications.taskIds must be an array of at most ${bounds.maxUris} task ids`, { maxSubscriptionsPerConnection: bounds.maxUris });
    }
    if (!taskIds.every((id) => typeof id === 'string' && id.length > 0 && id.length <= MAX_TASK_ID_LENGTH)) {
      return refused('notifications.taskIds must be an array of task id strings');
    }
    filter.taskIds = [...new Set(taskIds as string[])];
  }
  return { ok: true, filter };
}

/**
 * The subset of `requested` this server honours: a list kind only when it
 * declares that list's `listChanged`, resource URIs only when it declares
 * `resources.subscribe`, and then only those `isServed` accepts. A field the
 * client did not turn on is left out.
 */
export function honouredFilter(
  requested: ListenFilter,
  capabilities: ListenCapabilities,
  isServed: (uri: string) => boolean,
  /** Whether this server speaks tasks and the request declared the extension (the caller has refused it otherwise). */
  tasks = false,
): ListenFilter {
  const honoured: { -readonly [K in keyof ListenFilter]: ListenFilter[K] } = {};
  if (requested.toolsListChanged === true && capabilities.tools?.listChanged === true) honoured.toolsListChanged = true;
  if (requested.promptsListChanged === true && capabilities.prompts?.listChanged === true) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged === true && capabilities.resources?.listChanged === true) honoured.resourcesListChanged = true;
  if (requested.resourceSubscriptions !== undefined && capabilities.resources?.subscribe === true) {
    honoured.resourceSubscriptions = requested.resourceSubscriptions.filter(isServed);
  }
  // Any id is taken: a stream delivers only its owner's tasks (listen.ts), so a name it does not own leaks nothing.
  if (requested.taskIds !== undefined && tasks) honoured.taskIds = requested.taskIds;
  return honoured;
}
