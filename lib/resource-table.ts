/**
 * The registry's resources (fixed URIs): a definition with a `read`
 * function is served as it is; one with `content$` is served with a reader
 * of its latest value (live-content.ts), subscribed while it is in the
 * table. Replacing it with a definition of the same `content$` (a new
 * description, say) keeps the subscription, so no value is taken twice
 * and no update is announced that did not happen.
 */
import { isObservable, type Observable } from 'rxjs';
import { checkRequiredScopes } from './auth/scope-tokens.js';
import { requireFunction, requireName } from './definition-checks.js';
import type { TableSpec } from './keyed-table.js';
import { LiveContent } from './live-content.js';
import { resourceListing, type ObservableResourceDef, type ResourceDef } from './resource-def.js';

/** What `registerResource` and `bindResources` take: a reader, or an Observable of the content. */
export type AnyResourceDef = ResourceDef | ObservableResourceDef;

/** A resource as served: its reader, and for an observable one the content it reads. */
export interface ResourceEntry {
  readonly def: ResourceDef;
  readonly content$: Observable<unknown> | null;
  /** Set when the entry is placed: a new subscription, or the one it replaced when `content$` is the same. */
  live: LiveContent | null;
}

export interface LiveContentHooks {
  /** A value of `uri`'s content$ is now what a read answers. */
  updated(uri: string): void;
  failed(uri: string, error: unknown): void;
}

function hasContent(def: AnyResourceDef): def is ObservableResourceDef {
  return (def as Partial<ObservableResourceDef>).content$ !== undefined;
}

export function prepareResource(def: AnyResourceDef): ResourceEntry {
  requireName('a resource', def?.uri, 'uri');
  requireName(`resource ${def.uri}`, def.name);
  checkRequiredScopes('requiredScopes', `resource ${def.uri}`, def.requiredScopes);
  if (!hasContent(def)) {
    requireFunction('resource', def.uri, def.read, 'read');
    return { def, content$: null, live: null };
  }
  if (!isObservable(def.content$)) throw new TypeError(`resource ${def.uri} needs content$ to be an Observable`);
  if ((def as { read?: unknown }).read !== undefined) throw new TypeError(`resource ${def.uri} has both read and content$: give one`);
  const { content$, ...description } = def;
  const entry: ResourceEntry = {
    // Read through the entry: `live` is set when the entry is placed, before any server can see it.
    def: { ...description, read: () => entry.live!.read() },
    content$,
    live: null,
  };
  return entry;
}

export function resourceTableSpec(hooks: LiveContentHooks): TableSpec<AnyResourceDef, ResourceEntry> {
  return {
    kind: 'resource',
    field: 'uri',
    register: 'registerResource',
    keyOf: (def) => {
      requireName('a resource', def?.uri, 'uri');
      return def.uri;
    },
    visible: (entry) => ({ listing: resourceListing(entry.def), scopes: entry.def.requiredScopes ?? null }),
    placed: (entry, previous) => {
      if (entry.content$ === null) return;
      if (previous?.content$ === entry.content$ && previous.live !== null) {
        entry.live = previous.live;
        return;
      }
      const uri = entry.def.uri;
      entry.live = new LiveContent(uri);
      entry.live.start(
        entry.content$,
        () => hooks.updated(uri),
        (error) => hooks.failed(uri, error),
      );
    },
    left: (entry, successor) => {
      if (entry.live !== null && successor?.live !== entry.live) entry.live.stop();
    },
  };
}
