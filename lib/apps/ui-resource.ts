/**
 * A UI resource of MCP Apps (SEP-1865): an HTML view under the `ui://`
 * scheme, served as `text/html;profile=mcp-app` with its `_meta.ui` (CSP
 * domains, permissions, domain, border) both on its `resources/list` entry
 * and on the contents `resources/read` answers, where hosts look first.
 * `uiResourceDef` turns one into an ordinary ResourceDef, so it is read,
 * authorized (read authorizer, `requiredScopes`) and cancelled exactly like
 * every other resource.
 */
import { isObservable, map } from 'rxjs';
import type { CallbackReturn } from '../callback.js';
import type { CallContext } from '../context.js';
import { ConfigError } from '../errors.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import type { ResourceContents, ResourceDef, ResourceDescription } from '../resource-def.js';
import { checkUiResourceMeta, type UiResourceMeta } from './ui-resource-meta.js';

/** The MIME type of an MCP Apps HTML view, as the spec names it. */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';

/** A UI resource as registered: a `ui://` URI, a name, its `ui` metadata and its HTML. */
export interface UiResourceDef extends Omit<ResourceDescription, 'mimeType' | 'size'> {
  /** The view's URI; it must use the `ui://` scheme (e.g. `ui://notes/board`). Tools link to it by this URI. */
  uri: string;
  /** CSP domains, permissions, dedicated domain and border preference, sent as `_meta.ui`; omitted: the spec's restrictive defaults. */
  ui?: UiResourceMeta | undefined;
  /**
   * The view: one self-contained HTML5 document (the host renders it in a
   * sandboxed iframe with no origin of its own, so scripts and styles are
   * inline or on a `resourceDomains` origin). A string, or a function of
   * the read's context answering one (a value, a Promise or an Observable,
   * awaited as any resource reader's answer is).
   */
  html: string | ((ctx: CallContext) => CallbackReturn<string>);
}

/** Whether `uri` is a `ui://` URI with something after the scheme. */
export function isUiUri(uri: unknown): uri is string {
  return typeof uri === 'string' && /^ui:\/\/[^\s]+$/.test(uri);
}

/** Refuses a `_meta` that already says `ui` (the `ui` field is the one place for it). */
export function refuseMetaUi(where: string, meta: unknown): void {
  if (meta === undefined) return;
  if (!isPlainObject(meta)) throw new ConfigError('_meta', `${where}: _meta must be an object`);
  if ('ui' in meta) throw new ConfigError('_meta', `${where}: give the UI metadata as the ui field, not as _meta.ui`);
}

/**
 * The ResourceDef that serves a UI resource: checked (a ConfigError naming
 * what is wrong: a URI outside `ui://`, malformed `ui` metadata, no HTML),
 * listed with `mimeType: text/html;profile=mcp-app` and `_meta.ui`, and read
 * as one text contents item with the same `_meta.ui`.
 */
export function uiResourceDef(def: UiResourceDef): ResourceDef {
  if (!isPlainObject(def)) throw new ConfigError('uri', 'a UI resource must be an object');
  const where = `UI resource ${JSON.stringify(def.uri)}`;
  if (!isUiUri(def.uri)) throw new ConfigError('uri', `${where}: the URI must use the ui:// scheme (e.g. ui://notes/board)`);
  if (typeof def.html !== 'string' && typeof def.html !== 'function') throw new ConfigError('html', `${where} needs html: a string or a function answering one`);
  refuseMetaUi(where, def._meta);
  const ui = def.ui === undefined ? undefined : checkUiResourceMeta(where, def.ui);
  const meta = ui === undefined || Object.keys(ui).length === 0 ? def._meta : { ...def._meta, ui };
  const { html, ui: _ui, ...description } = def;
  const contents = (text: unknown): { contents: ResourceContents[] } => {
    // Checked per read: a function's answer is known only now, and anything but a string is a bug to surface, not to serve.
    if (typeof text !== 'string') throw new TypeError(`${where}: html answered ${typeof text}, not a string`);
    return { contents: [{ uri: def.uri, mimeType: UI_MIME_TYPE, text, ...(meta?.ui === undefined ? {} : { _meta: { ui: meta.ui } }) }] };
  };
  return {
    ...description,
    mimeType: UI_MIME_TYPE,
    ...(meta === undefined ? {} : { _meta: meta }),
    read: (_uri, ctx) => {
      if (typeof html === 'string') return contents(html);
      const answer = html(ctx);
      if (isObservable(answer)) return answer.pipe(map(contents));
      return answer instanceof Promise ? answer.then(contents) : contents(answer);
    },
  };
}
