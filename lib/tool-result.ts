/**
 * How a tool handler's outcome becomes a CallToolResult: a string is one text
 * item, an array of content items is the content, a CallToolResult-shaped
 * object is taken as is, and anything else is one text item holding its JSON.
 */
export interface CallToolResult {
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

function isContentItem(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

export function isCallToolResult(value: unknown): value is CallToolResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as CallToolResult).content) &&
    (value as CallToolResult).content.every(isContentItem)
  );
}

/** Throws when the outcome cannot be serialised (a cycle, a BigInt): the caller reads that as a crash. */
export function toCallToolResult(outcome: unknown): CallToolResult {
  if (typeof outcome === 'string') return { content: [{ type: 'text', text: outcome }] };
  if (outcome === undefined) return { content: [] };
  if (Array.isArray(outcome) && outcome.length > 0 && outcome.every(isContentItem)) return { content: outcome };
  if (isCallToolResult(outcome)) return outcome;
  return { content: [{ type: 'text', text: JSON.stringify(outcome) }] };
}

/**
 * For a tool with an outputSchema, a plain object outcome is its structured
 * result: sent as `structuredContent`, with its JSON as the text for clients
 * that only read content.
 */
export function toStructuredToolResult(outcome: unknown): CallToolResult {
  if (typeof outcome === 'object' && outcome !== null && !Array.isArray(outcome) && !isCallToolResult(outcome)) {
    return { content: [{ type: 'text', text: JSON.stringify(outcome) }], structuredContent: outcome as Record<string, unknown> };
  }
  return toCallToolResult(outcome);
}
