/**
 * A task (the tasks extension, `io.modelcontextprotocol/tasks`): the durable
 * state of a `tools/call` the server chose to answer later. What a TaskStore
 * keeps, and what `tasks/get` (2026-07-28) and the 2025-11-25 task methods
 * are both encoded from, so the two eras read one record.
 */
import type { InputRequest } from '../mrtr/approval-form.js';

/** The extension's identifier, declared under `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** Where a task is: `working` and `input_required` move; the other three are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * Whether a tool may run as a task (the spec's terms): `forbidden` (the
 * default: always a plain call), `optional` (the server decides, by the
 * tasks policy) or `required` (a client that did not declare the extension
 * is answered -32021).
 */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** The JSON-RPC error of a `failed` task. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A task as its store keeps it. Times are milliseconds on the store's clock. */
export interface TaskRecord {
  /** 128 random bits, base64url, prefixed: unguessable, never a capability on its own (every request is checked against `owner`). */
  readonly taskId: string;
  /** The owner key of the request that created it (lib/auth/owner-key.ts): only that owner can read, answer or cancel it. */
  readonly owner: string;
  /** The request method the task answers (`tools/call`). */
  readonly method: string;
  /** The tool, for logs and telemetry. */
  readonly name: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string | undefined;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** From creation; the store forgets the task after it. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** While `input_required`: every request still unanswered, by key (keys are never reused in one task). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>> | undefined;
  /** When `completed`: the request's result (a CallToolResult, `isError` included). */
  readonly result?: Readonly<Record<string, unknown>> | undefined;
  /** When `failed`: the JSON-RPC error the request ended with. */
  readonly error?: TaskError | undefined;
}

/** Whether a status is final: completed, failed or cancelled. */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
