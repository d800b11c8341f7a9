/**
 * One HTTP exchange with an authorization server, bounded in time by the
 * server's scheduler (no wall-clock timer of our own): the JSON object of a
 * 200 answer, or an error. Redirects are not followed, so a metadata or
 * introspection URL cannot be bounced elsewhere.
 */
import type { SchedulerLike } from 'rxjs';
import { ConfigError } from '../errors.js';

export interface FetchJsonOptions {
  readonly method?: 'GET' | 'POST' | undefined;
  readonly headers?: Record<string, string> | undefined;
  readonly body?: string | undefined;
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
}

export class AuthServerError extends Error {
  override name = 'AuthServerError';
}

export async function fetchJson(url: string, options: FetchJsonOptions): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const timeout = options.scheduler.schedule(() => controller.abort(new AuthServerError(`no answer from ${url} within ${options.timeoutMs} ms`)), options.timeoutMs);
  try {
    const response = await fetch(url, {
      method: options.method ?? 'GET',
      headers: { accept: 'application/json', ...options.headers },
      ...(options.body === undefined ? {} : { body: options.body }),
      redirect: 'manual',
      signal: controller.signal,
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new AuthServerError(`${url} answered ${response.status}`);
    }
    const json: unknown = await response.json();
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new AuthServerError(`${url} did not answer a JSON object`);
    return json as Record<string, unknown>;
  } finally {
    timeout.unsubscribe();
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An authorization-server URL option: absolute, https (http only on a
 * loopback host, for tests and development), no fragment. Returns it parsed.
 */
export function serverUrl(option: string, value: unknown, { allowQuery = true } = {}): URL {
  if (typeof value !== 'string') throw new ConfigError(option, `${option} must be a URL string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(option, `${option} must be an absolute URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new ConfigError(option, `${option} must be an https URL (http only on localhost), got ${JSON.stringify(value)}`);
  }
  if (url.hash !== '' || value.includes('#')) throw new ConfigError(option, `${option} must not have a fragment`);
  if (!allowQuery && url.search !== '') throw new ConfigError(option, `${option} must not have a query`);
  return url;
}
