/**
 * ToolCall: a tools/call in flight, as the test client hands it back. It is
 * the Promise of the result (so `await client.callTool(...)` reads as it
 * would with any client), carrying what arrived for that request while it
 * ran: its progress notifications and log lines, each stamped with the test
 * clock's time, readable before the result is in.
 */
import type { JsonRpcId } from '../lib/protocol/jsonrpc.js';
import type { LogLevel } from '../lib/log-levels.js';
import type { ToolResult } from './tool-result.js';

/** A progress notification a test call received, with its virtual time. */
export interface ProgressNote {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
  /** When it arrived, on the test clock. */
  readonly at: number;
}

/** A log line a test call received, with its virtual time. */
export interface LogLine {
  readonly level: LogLevel;
  readonly data: unknown;
  readonly logger?: string;
  readonly at: number;
}

/** What the client gathers for one request (a modern call's retries included). */
export interface CallRecord {
  /** Every JSON-RPC id the call was sent under: one, or one per modern round. */
  readonly requestIds: JsonRpcId[];
  readonly progress: ProgressNote[];
  readonly logs: LogLine[];
}

/** A test client's tool call: the Promise of its result, with its own `progress`, `logs` and `cancel(reason?)`. */
export type ToolCall<S = Record<string, unknown>> = Promise<ToolResult<S>> & {
  /** The request ids so far (a modern call gets a new one per round). */
  readonly requestIds: readonly JsonRpcId[];
  readonly progress: readonly ProgressNote[];
  readonly logs: readonly LogLine[];
  /** Sends notifications/cancelled for the call; the Promise rejects with CallAbandonedError('cancelled'). */
  cancel(reason?: string): void;
};

export function toolCall<S>(result: Promise<ToolResult<S>>, record: CallRecord, cancel: (reason?: string) => void): ToolCall<S> {
  return Object.assign(result, {
    requestIds: record.requestIds,
    progress: record.progress,
    logs: record.logs,
    cancel,
  });
}
