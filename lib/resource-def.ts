/**
 * Resources (a fixed URI) and resource templates (a URI template whose
 * variables are handed to the reader).
 */
import type { Observable } from 'rxjs';
import type { CallbackReturn } from './callback.js';
import type { CallContext } from './context.js';
import type { Icon } from './tool-def.js';

/** A resource's contents as read: text or a base64 blob, with its URI and MIME type. */
export interface ResourceContents {
  uri: string;
  mimeType?: string | undefined;
  text?: string | undefined;
  blob?: string | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/** A string, bytes, one contents object (uri optional), an array of them, or `{ contents }`. */
export type ResourceReadOutcome = unknown;

export interface ResourceDescription {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
  size?: number | undefined;
  annotations?: Record<string, unknown> | undefined;
  icons?: Icon[] | undefined;
  _meta?: Record<string, unknown> | undefined;
  /** OAuth scopes a caller's principal must hold to see and read it (see ToolDef.requiredScopes). Not listed. */
  requiredScopes?: readonly string[] | undefined;
}

/** A resource as registered: its URI and name, and `read` (or `content$`, an Observable of its content). */
export interface ResourceDef extends ResourceDescription {
  uri: string;
  /** Answers a read: a string, bytes, contents objects, or `{ contents }` (a value, a Promise or an Observable). */
  read: (uri: string, ctx: CallContext) => CallbackReturn<ResourceReadOutcome>;
}

/**
 * A resource whose content is an Observable: a read answers its latest value
 * (any shape a reader may return), and each value sends
 * notifications/resources/updated to the clients subscribed to `uri` (see
 * lib/live-content.ts). Subscribed while registered.
 */
export interface ObservableResourceDef extends ResourceDescription {
  uri: string;
  content$: Observable<ResourceReadOutcome>;
}

/** Suggests completions of an argument from what the client typed so far. */
export type Completer = (value: string, ctx: CompletionContext) => CallbackReturn<readonly string[]>;

/** A completer's context: the call context, plus `arguments`, the values the client already chose. */
export interface CompletionContext extends CallContext {
  /** Values the client already chose for other arguments (`context.arguments`). */
  readonly arguments: Record<string, string>;
}

/** A resource template as registered: an RFC 6570 URI template, `read` with the matched variables, and completers. */
export interface ResourceTemplateDef extends ResourceDescription {
  uriTemplate: string;
  /** Answers a read of a URI the template matched, with the variables it matched. */
  read: (uri: string, variables: Record<string, string>, ctx: CallContext) => CallbackReturn<ResourceReadOutcome>;
  /** Completers for template variables, by variable name. */
  complete?: Record<string, Completer> | undefined;
}

function describe(def: ResourceDescription): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: def.name };
  for (const key of ['title', 'description', 'mimeType', 'size', 'annotations', 'icons', '_meta'] as const) {
    if (def[key] !== undefined) entry[key] = def[key];
  }
  return entry;
}

export function resourceListing(def: ResourceDef): Record<string, unknown> {
  return { uri: def.uri, ...describe(def) };
}

export function templateListing(def: ResourceTemplateDef): Record<string, unknown> {
  const { size: _size, ...entry } = describe(def);
  return { uriTemplate: def.uriTemplate, ...entry };
}

function isContents(value: unknown): value is Partial<ResourceContents> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (typeof (value as ResourceContents).text === 'string' || typeof (value as ResourceContents).blob === 'string')
  );
}

/** Reads a reader's outcome as `{ contents }`; `undefined` when it is none of the accepted shapes. */
export function toReadResult(uri: string, mimeType: string | undefined, outcome: unknown): { contents: ResourceContents[] } | undefined {
  const withUri = (c: Partial<ResourceContents>): ResourceContents => {
    const item: ResourceContents = { uri: c.uri ?? uri, ...c } as ResourceContents;
    if (item.mimeType === undefined && mimeType !== undefined) item.mimeType = mimeType;
    return item;
  };
  if (typeof outcome === 'string') return { contents: [withUri({ text: outcome })] };
  if (outcome instanceof Uint8Array) return { contents: [withUri({ blob: Buffer.from(outcome).toString('base64') })] };
  if (isContents(outcome)) return { contents: [withUri(outcome)] };
  if (Array.isArray(outcome) && outcome.every(isContents)) return { contents: outcome.map(withUri) };
  if (typeof outcome === 'object' && outcome !== null && Array.isArray((outcome as { contents?: unknown }).contents)) {
    const contents = (outcome as { contents: unknown[] }).contents;
    if (contents.every(isContents)) return { contents: contents.map(withUri) };
  }
  return undefined;
}
