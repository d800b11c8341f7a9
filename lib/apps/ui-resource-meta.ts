/**
 * The `_meta.ui` of an MCP Apps UI resource (SEP-1865, stable 2026-01-26):
 * what the host must know before it renders the view, its content-security
 * domains, the browser permissions it asks for, a dedicated sandbox origin
 * and a border preference. The host builds the iframe's CSP and `allow`
 * attribute from it and must not loosen them, so a malformed entry is refused
 * at registration (a ConfigError naming it) rather than served and ignored.
 */
import { ConfigError } from '../errors.js';
import { isPlainObject } from '../protocol/jsonrpc.js';

/**
 * Origins a view may reach, by CSP directive. Empty or omitted is the spec's
 * restrictive default: no network, no external resource, no nested frame.
 */
export interface UiResourceCsp {
  /** Origins for fetch, XHR and WebSocket (`connect-src`). */
  readonly connectDomains?: readonly string[] | undefined;
  /** Origins for scripts, styles, images, fonts and media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`); `https://*.example.com` allowed. */
  readonly resourceDomains?: readonly string[] | undefined;
  /** Origins of nested iframes (`frame-src`). */
  readonly frameDomains?: readonly string[] | undefined;
  /** Allowed base URIs of the document (`base-uri`). */
  readonly baseUriDomains?: readonly string[] | undefined;
}

/** Browser permissions a view asks for (the iframe's Permission Policy); a host may refuse any, so a view detects features instead of assuming them. */
export interface UiResourcePermissions {
  /** The `camera` feature. */
  readonly camera?: Record<string, never> | undefined;
  /** The `microphone` feature. */
  readonly microphone?: Record<string, never> | undefined;
  /** The `geolocation` feature. */
  readonly geolocation?: Record<string, never> | undefined;
  /** The `clipboard-write` feature. */
  readonly clipboardWrite?: Record<string, never> | undefined;
}

/** A UI resource's `_meta.ui`: sent on its `resources/list` entry and on the contents `resources/read` answers. */
export interface UiResourceMeta {
  /** The domains the view needs, by directive; omitted: none (the spec's default CSP). */
  readonly csp?: UiResourceCsp | undefined;
  /** The browser permissions the view asks for; omitted: none. */
  readonly permissions?: UiResourcePermissions | undefined;
  /** A dedicated sandbox origin for the view, in the format the host documents (e.g. for OAuth callbacks or CORS allowlists); omitted: the host's default. */
  readonly domain?: string | undefined;
  /** Whether the view asks for a visible border and background; omitted: the host decides. */
  readonly prefersBorder?: boolean | undefined;
}

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
const META_KEYS = ['csp', 'permissions', 'domain', 'prefersBorder'] as const;

/** An origin as a CSP source: a scheme, a host (its first label may be `*`), an optional port; nothing after. */
const ORIGIN = /^(?:https?|wss?):\/\/(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?$/;

function refuseUnknownKeys(where: string, value: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new ConfigError('ui', `${where}: unknown ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: ${known.join(', ')})`);
}

function checkCsp(where: string, csp: unknown): void {
  if (!isPlainObject(csp)) throw new ConfigError('ui', `${where}.csp must be an object`);
  refuseUnknownKeys(`${where}.csp`, csp, CSP_KEYS);
  for (const key of CSP_KEYS) {
    const domains = csp[key];
    if (domains === undefined) continue;
    if (!Array.isArray(domains)) throw new ConfigError('ui', `${where}.csp.${key} must be an array of origins`);
    for (const domain of domains) {
      // A CSP source list is space-separated: a space or a quote would smuggle in another directive or keyword.
      if (typeof domain !== 'string' || !ORIGIN.test(domain)) {
        throw new ConfigError('ui', `${where}.csp.${key}: ${JSON.stringify(domain)} is not an origin (e.g. https://api.example.com, https://*.example.com)`);
      }
    }
  }
}

function checkPermissions(where: string, permissions: unknown): void {
  if (!isPlainObject(permissions)) throw new ConfigError('ui', `${where}.permissions must be an object`);
  refuseUnknownKeys(`${where}.permissions`, permissions, PERMISSION_KEYS);
  for (const key of PERMISSION_KEYS) {
    const value = permissions[key];
    if (value !== undefined && !(isPlainObject(value) && Object.keys(value).length === 0)) {
      throw new ConfigError('ui', `${where}.permissions.${key} must be {} (asked) or left out`);
    }
  }
}

/** Checks a UI resource's `_meta.ui` (a ConfigError naming the bad member) and returns a frozen copy without undefined members. */
export function checkUiResourceMeta(where: string, meta: unknown): UiResourceMeta {
  if (!isPlainObject(meta)) throw new ConfigError('ui', `${where}: ui must be an object`);
  refuseUnknownKeys(where, meta, META_KEYS);
  if (meta.csp !== undefined) checkCsp(where, meta.csp);
  if (meta.permissions !== undefined) checkPermissions(where, meta.permissions);
  if (meta.domain !== undefined && (typeof meta.domain !== 'string' || meta.domain.length === 0 || /\s/.test(meta.domain))) {
    throw new ConfigError('ui', `${where}.domain must be a non-empty string without spaces`);
  }
  if (meta.prefersBorder !== undefined && typeof meta.prefersBorder !== 'boolean') throw new ConfigError('ui', `${where}.prefersBorder must be a boolean`);
  // A JSON round trip drops undefined members and detaches the copy from the caller's objects.
  return deepFreeze(JSON.parse(JSON.stringify(meta)) as UiResourceMeta);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
