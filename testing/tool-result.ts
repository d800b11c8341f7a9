/**
 * What a test reads back from a tool call, typed: the content items the
 * spec defines (narrow on `type`), the structured result as the test says it
 * is, and the era's extra members. `textOf` is the common case, the text.
 */
export interface TextContent {
  readonly type: 'text';
  readonly text: string;
  readonly annotations?: Record<string, unknown>;
}

/** An image or audio content item of a tool result. */
export interface MediaContent {
  readonly type: 'image' | 'audio';
  readonly data: string;
  readonly mimeType: string;
  readonly annotations?: Record<string, unknown>;
}

/** A resource link content item of a tool result. */
export interface ResourceLinkContent {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly [field: string]: unknown;
}

/** An embedded resource content item of a tool result. */
export interface EmbeddedResourceContent {
  readonly type: 'resource';
  readonly resource: { readonly uri: string; readonly mimeType?: string; readonly text?: string; readonly blob?: string };
  readonly annotations?: Record<string, unknown>;
}

/** A content item of a tool result, as a test reads it. */
export type ContentItem = TextContent | MediaContent | ResourceLinkContent | EmbeddedResourceContent;

/** A tools/call result; `S` is the structured result's type, as the test knows it (the tool's outputSchema). */
export interface ToolResult<S = Record<string, unknown>> {
  readonly content: readonly ContentItem[];
  readonly structuredContent?: S;
  readonly isError?: boolean;
  /** Modern: `"complete"` (an `input_required` round is answered by the test client, never returned). */
  readonly resultType?: string;
  readonly _meta?: Record<string, unknown>;
}

/** The text items of a result, joined by newlines: what a model reading the result sees first. */
export function textOf(result: { readonly content: readonly unknown[] }): string {
  return result.content
    .filter((item): item is TextContent => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'text')
    .map((item) => item.text)
    .join('\n');
}
