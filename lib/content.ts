/**
 * Content helpers for tool results and prompt messages: the MCP content
 * item shapes, so a handler can return `[text('hi'), image(png, 'image/png')]`.
 */
import type { ResourceContents } from './resource-def.js';

/** Optional annotations of a content item (audience, priority, last modified). */
export interface Annotations {
  audience?: Array<'user' | 'assistant'> | undefined;
  priority?: number | undefined;
  lastModified?: string | undefined;
}

function withAnnotations<T extends object>(item: T, annotations?: Annotations): T {
  return annotations === undefined ? item : { ...item, annotations };
}

function base64(data: string | Uint8Array): string {
  return typeof data === 'string' ? data : Buffer.from(data).toString('base64');
}

/** A text content item. */
export function text(value: string, annotations?: Annotations) {
  return withAnnotations({ type: 'text' as const, text: value }, annotations);
}

/** `data` is base64 already when a string, raw bytes otherwise. */
export function image(data: string | Uint8Array, mimeType: string, annotations?: Annotations) {
  return withAnnotations({ type: 'image' as const, data: base64(data), mimeType }, annotations);
}

/** `data` is base64 already when a string, raw bytes otherwise. */
export function audio(data: string | Uint8Array, mimeType: string, annotations?: Annotations) {
  return withAnnotations({ type: 'audio' as const, data: base64(data), mimeType }, annotations);
}

/** An embedded resource content item. */
export function embeddedResource(resource: ResourceContents, annotations?: Annotations) {
  return withAnnotations({ type: 'resource' as const, resource }, annotations);
}

/** The fields of a `resource_link` content item. */
export interface ResourceLinkFields {
  uri: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
  size?: number | undefined;
}

/** A `resource_link` content item. */
export function resourceLink(fields: ResourceLinkFields, annotations?: Annotations) {
  return withAnnotations({ type: 'resource_link' as const, ...fields }, annotations);
}
