/**
 * appsExtension: MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`) on the
 * extension API (lib/extension.ts), like Skills:
 *
 * - declared as `capabilities.extensions["io.modelcontextprotocol/ui"]` with
 *   the `mimeTypes` the server's views use (default
 *   `["text/html;profile=mcp-app"]`), in `initialize` and `server/discover`;
 * - no methods of its own: a host reads a view with `resources/read` and a
 *   view calls tools with `tools/call` through its host, so both take the
 *   path every read and call takes (the read authorizer, the tool
 *   authorizer and its approvals, `requiredScopes`, the in-flight bounds);
 * - at `createServer` (`setup`), every tool that links a view must link one
 *   that is served: a registered `ui://` resource (or a template matching
 *   the URI) of a declared MIME type; anything else refuses to start with a
 *   ConfigError, since the spec says the linked resource MUST exist.
 *
 * Hosts decide what to render: a client that did not declare the extension
 * still sees the tools (their text content is the fallback the spec asks
 * for); a handler that words its answer differently for a host that renders
 * views asks `ctx.clientDeclares(APPS_EXTENSION_ID)`.
 */
import { ConfigError } from '../errors.js';
import type { Extension } from '../extension.js';
import type { Registry } from '../registry.js';
import { linkedUiResource } from './app-tool.js';
import { isUiUri, UI_MIME_TYPE } from './ui-resource.js';

/** The MCP Apps extension identifier, under which the server declares it and a host declares the MIME types it renders. */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** How `appsExtension` declares MCP Apps. */
export interface AppsOptions {
  /** The view MIME types the server serves, declared as `mimeTypes`; default `['text/html;profile=mcp-app']`, the one type the spec defines. */
  readonly mimeTypes?: readonly string[] | undefined;
}

function checkLinks(registry: Registry, mimeTypes: readonly string[]): void {
  for (const tool of registry.tools()) {
    const uri = linkedUiResource(tool);
    if (uri === undefined) continue;
    const where = `extensions: ${APPS_EXTENSION_ID}: tool ${JSON.stringify(tool.name)} links ${JSON.stringify(uri)}`;
    if (!isUiUri(uri)) throw new ConfigError('extensions', `${where}, which is not a ui:// URI`);
    const served = registry.resource(uri) ?? registry.matchTemplate(uri)?.def;
    if (served === undefined) throw new ConfigError('extensions', `${where}, which is not registered: register the view with registerUiResource (or registerApp)`);
    if (served.mimeType === undefined || !mimeTypes.includes(served.mimeType)) {
      throw new ConfigError('extensions', `${where}, served as ${JSON.stringify(served.mimeType)}, not as ${mimeTypes.join(' or ')}`);
    }
  }
}

/** The MCP Apps extension: declares `io.modelcontextprotocol/ui` with its `mimeTypes` and checks, at createServer, that every tool's view is served. */
export function appsExtension(options: AppsOptions = {}): Extension {
  const mimeTypes = options.mimeTypes ?? [UI_MIME_TYPE];
  if (!Array.isArray(mimeTypes) || mimeTypes.length === 0 || !mimeTypes.every((type) => typeof type === 'string' && type.length > 0)) {
    throw new ConfigError('extensions', `${APPS_EXTENSION_ID} mimeTypes must be a non-empty array of MIME types`);
  }
  const declared = Object.freeze([...mimeTypes]);
  return {
    id: APPS_EXTENSION_ID,
    settings: { mimeTypes: declared },
    setup: (registry) => checkLinks(registry, declared),
  };
}
