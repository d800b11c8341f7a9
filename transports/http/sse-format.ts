/**
 * The SSE wire format: one event's `id:`, `event:`, `retry:` and `data:`
 * lines, comment lines, and the response headers of an event stream.
 */

export interface SseEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
  readonly retry?: number;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** SSE_HEADERS as the flat name/value list writeHead takes as is. */
const SSE_HEADER_LIST: readonly string[] = Object.entries(SSE_HEADERS).flat();

const LINE_BREAK = /\r\n|\r|\n/;
const HAS_LINE_BREAK = /[\r\n]/;

/** The `data:` lines of one event: one per line of data. */
function dataLines(data: string): string {
  // Encoded JSON never holds a raw line break: one line, no split.
  if (!HAS_LINE_BREAK.test(data)) return data === '' ? 'data:\n' : `data: ${data}\n`;
  let text = '';
  for (const line of data.split(LINE_BREAK)) text += line === '' ? 'data:\n' : `data: ${line}\n`;
  return text;
}

/** The wire form of one event. Data is split on line breaks, one `data:` line each. */
export function formatSseEvent(event: SseEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  return `${text}${dataLines(event.data)}\n`;
}

/** A priming event: an id, the reconnection delay, empty data (the client can resume from the very start). */
export function primingEvent(id: string, retryMs: number): SseEvent {
  return { id, retry: retryMs, data: '' };
}

export function formatSseComment(comment: string): string {
  return `: ${comment.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** The header list of an event stream, with extra headers and, for a stream sent whole, its length. */
export function sseHeaderList(extra: Readonly<Record<string, string>>, contentLength: number | undefined): string[] {
  const list = SSE_HEADER_LIST.slice();
  for (const name in extra) list.push(name, extra[name]!);
  if (contentLength !== undefined) list.push('Content-Length', String(contentLength));
  return list;
}
