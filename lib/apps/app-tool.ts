/**
 * A tool of an MCP App (SEP-1865): an ordinary tool whose `_meta.ui` links it
 * to the UI resource a host renders for it (`resourceUri`) and says who may
 * call it (`visibility`: the model, the app, or both). `appToolDef` turns one
 * into a ToolDef, so it is validated, authorized (the tool authorizer, its
 * approvals, `requiredScopes`) and run exactly like every other tool: a view
 * calling it through its host is just a client calling it.
 */
import { ConfigError } from '../errors.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import type { ToolDef, TypedToolDef } from '../tool-def.js';
import type { ToolResultOf, ToolSchema } from '../tool-types.js';
import { isUiUri, refuseMetaUi } from './ui-resource.js';

/** Who may call an app tool: `model` (the agent sees it in its tool list), `app` (a view of this server may call it through its host). */
export type AppToolVisibility = 'model' | 'app';

/** The `_meta.ui` of an app tool, as given to `registerAppTool`. */
export interface AppToolUi {
  /** The `ui://` URI of the view a host renders for this tool's results. */
  readonly resourceUri: string;
  /** Who may call it; default (omitted) `['model', 'app']`. `['app']` hides it from the model: a button's tool. */
  readonly visibility?: readonly AppToolVisibility[] | undefined;
}

/** A tool linked to a view: a typed tool definition plus its `ui`. */
export type TypedAppToolDef<
  I extends ToolSchema | undefined = undefined,
  O extends ToolSchema | undefined = undefined,
  R extends ToolResultOf<O> = ToolResultOf<O>,
> = TypedToolDef<I, O, R> & { ui: AppToolUi };

/** The untyped form of an app tool (what `registerApp` takes): `ui.resourceUri` may be left to the app's resource there. */
export interface AppToolDef extends ToolDef {
  /** The link to the view; in `registerApp`, `resourceUri` defaults to the app's resource. */
  ui: Partial<AppToolUi>;
}

/** The legacy flat key older hosts read the link from (the spec deprecates it; the official server helpers still write it). */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

const VISIBILITIES: readonly AppToolVisibility[] = ['model', 'app'];

function checkVisibility(where: string, visibility: unknown): void {
  if (visibility === undefined) return;
  const ok =
    Array.isArray(visibility) &&
    visibility.length > 0 &&
    visibility.every((v) => VISIBILITIES.includes(v as AppToolVisibility)) &&
    new Set(visibility).size === visibility.length;
  if (!ok) throw new ConfigError('ui', `${where}: ui.visibility must be a non-empty list of distinct 'model' and 'app'`);
}

/**
 * A typed app tool kept for later (`registerApp`, a module of tools): checked
 * by the compiler as `registerAppTool` checks one inline, returned as is.
 */
export function defineAppTool<
  const I extends ToolSchema | undefined = undefined,
  const O extends ToolSchema | undefined = undefined,
  const R extends ToolResultOf<O> = ToolResultOf<O>,
>(def: TypedToolDef<I, O, R> & { ui: Partial<AppToolUi> }): AppToolDef {
  return def as unknown as AppToolDef;
}

/**
 * The ToolDef of an app tool: its `_meta.ui` set from `ui` (with the legacy
 * `ui/resourceUri` key beside it for older hosts), `ui` itself dropped.
 * A ConfigError when `ui.resourceUri` is not a `ui://` URI, `visibility` is
 * malformed, or `_meta` already says `ui`.
 */
export function appToolDef(def: AppToolDef): ToolDef {
  if (!isPlainObject(def)) throw new ConfigError('ui', 'an app tool must be an object');
  const where = `app tool ${JSON.stringify(def.name)}`;
  if (!isPlainObject(def.ui)) throw new ConfigError('ui', `${where} needs ui: { resourceUri }`);
  const { resourceUri, visibility } = def.ui;
  if (!isUiUri(resourceUri)) throw new ConfigError('ui', `${where}: ui.resourceUri must be a ui:// URI, got ${JSON.stringify(resourceUri)}`);
  checkVisibility(where, visibility);
  refuseMetaUi(where, def._meta);
  const { ui: _ui, ...tool } = def;
  const ui = Object.freeze({ resourceUri, ...(visibility === undefined ? {} : { visibility: Object.freeze([...visibility]) }) });
  return { ...tool, _meta: { ...def._meta, ui, [LEGACY_RESOURCE_URI_KEY]: resourceUri } };
}

/** The `ui://` URI a listed or registered tool links to (`_meta.ui.resourceUri`, else the legacy flat key), if any. */
export function linkedUiResource(tool: Pick<ToolDef, '_meta'>): string | undefined {
  const meta = tool._meta;
  if (meta === undefined) return undefined;
  const ui = meta.ui;
  const uri = isPlainObject(ui) ? ui.resourceUri : meta[LEGACY_RESOURCE_URI_KEY];
  return typeof uri === 'string' ? uri : undefined;
}
