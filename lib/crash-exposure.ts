/**
 * What a client is told when a tool's handler crashes (throws anything but a
 * ToolError). The contract fixes the text `Error: callback_crashed` and keeps
 * the message in the server's log: an error's message may hold paths, SQL or
 * secrets, and a tool result is read by a model. That stays the default. A
 * newcomer looking at a client that shows only `callback_crashed` needs to
 * learn where the rest is, so the option can add that (`'hint'`), or send the
 * message itself (`'message'`) for servers whose errors are fit to show.
 */
import { ConfigError } from './errors.js';

/**
 * `false` (default): the contract's `Error: callback_crashed`, nothing else.
 * `'hint'`: that, plus where the error is and how to send a message
 * (`ToolError`, or `'message'`). `'message'`: that, plus `: <name>: <message>`
 * of what was thrown. Only `tools/call` results change; a read's -32603 keeps
 * its fixed data.
 */
export type ExposeErrors = false | 'hint' | 'message';

const EXPOSE_ERRORS: readonly ExposeErrors[] = [false, 'hint', 'message'];

/** Longest message sent under `'message'`: a tool result is not the place for a megabyte of stack. */
export const MAX_EXPOSED_MESSAGE = 1000;

export const CRASH_HINT =
  "the tool threw; its error is in the server's log. A tool sends the client a message by throwing ToolError; createServer({ exposeErrors: 'message' }) sends every message";

export function resolveExposeErrors(value: unknown): ExposeErrors {
  if (value === undefined) return false;
  if (!EXPOSE_ERRORS.includes(value as ExposeErrors)) {
    throw new ConfigError('exposeErrors', `exposeErrors must be false, 'hint' or 'message', got ${JSON.stringify(value)}`);
  }
  return value as ExposeErrors;
}

function describeThrown(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_EXPOSED_MESSAGE ? `${text.slice(0, MAX_EXPOSED_MESSAGE)}...` : text;
}

/** The text of a crashed tools/call under `expose`: the contract's, or with the hint or the message after it. */
export function crashedToolText(expose: ExposeErrors, error: unknown): string {
  if (expose === 'hint') return `Error: callback_crashed (${CRASH_HINT})`;
  if (expose === 'message') return `Error: callback_crashed: ${describeThrown(error)}`;
  return 'Error: callback_crashed';
}
