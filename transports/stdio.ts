/**
 * The stdio transport: newline-delimited JSON-RPC on a readable (default
 * stdin) and a writable (default stdout), as ONE connection (`'default'`
 * unless told otherwise) declared as `transport: 'stdio'`.
 *
 * - Every decoded line goes straight into `server.connect`, so many calls run
 *   at once; a parked tools/call stays outstanding and its eventual response
 *   is written when it comes.
 * - An undecodable line is answered -32700 (id null). A line over
 *   `maxLineBytes` is answered -32700 naming the limit and skipped up to its
 *   newline without being buffered; the connection lives on.
 * - Input ending is the peer done sending: the requests it is still owed a
 *   reply for get up to `drainMs` (on the server's clock) to finish, and
 *   their replies are written; then, or as soon as none is left, the
 *   connection is unsubscribed, which drops what is still parked and aborts
 *   what still runs (their replies are never written), and `closed`
 *   resolves. Input failing, or destroyed without ending, is the peer gone:
 *   all of that at once. `close()` ends it at once from our side and stops
 *   reading.
 * - While it serves on process.stdout, console.log and its kin go to stderr
 *   (stdio-console.ts), put back when it stops: a stray log line in a
 *   handler cannot corrupt the wire.
 * - Backpressure: no message is ever dropped. When `output.write` returns
 *   false the message stays in the Writable's buffer and we stop READING
 *   input until 'drain', so a peer that does not read cannot make us buffer
 *   the replies to an endless stream of requests. What is already in flight
 *   (late replies, pushes, broadcasts) is still written and buffered by Node.
 * - No OAuth on stdio (the MCP spec leaves credentials to the environment):
 *   the operator may set the connection's `principal` (e.g. the OS user),
 *   so authorizers, declared scopes and approval ownership can still reason
 *   about who is calling. Nothing on the wire can set or change it.
 *
 * What only this transport uses is here too, below serveStdio: its framing
 * (JSON lines, split without buffering an over-long line) and its writer
 * (BurstWriter: the replies ready in one turn written together).
 */
import { Subject } from 'rxjs';
import type { Readable, Writable } from 'node:stream';
import { isPrincipal, type Principal } from '../lib/auth/principal.js';
import { DEFAULT_CONN_ID, type ConnId } from '../lib/context.js';
import { ConfigError, parseError } from '../lib/errors.js';
import { guardedObserver } from '../lib/guarded.js';
import { booleanOption, nonNegativeIntegerOption, positiveIntegerOption } from '../lib/option-checks.js';
import type { McpServer } from '../streams/mcp-server.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';
import { RepeatedEnvelopeParser } from './repeated-envelope.js';
import { connectOptionsOf } from './connect-options.js';
import { consoleToStderr } from './stdio-console.js';
import { encodeMessage } from '../lib/protocol/encode.js';

/** Default of StdioOptions.drainMs: a second for the calls still owed a reply after stdin ends. */
export const DEFAULT_DRAIN_MS = 1000;

/** The default `maxLineBytes` of stdio (4 MiB). */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

/** Options of `serveStdio`: the streams, `maxLineBytes`, the connection id, the operator's principal, `drainMs` and `consoleToStderr`. */
export interface StdioOptions {
  /** Default `process.stdin`. */
  readonly input?: Readable | undefined;
  /** Default `process.stdout`: nothing else may write to it, it is the wire. */
  readonly output?: Writable | undefined;
  /** Longest accepted line in bytes, without its newline; default 4 MiB. */
  readonly maxLineBytes?: number | undefined;
  /** Default `'default'`, the contract's id for the stdio peer. */
  readonly connId?: ConnId | undefined;
  /** Who is on the other end, as the operator vouches (made by makePrincipal, e.g. kind 'local'); default none. */
  readonly principal?: Principal | undefined;
  /**
   * After input ends, how long (ms, on the server's scheduler) the requests
   * still owed a reply may take before they are dropped; default 1000, 0
   * drops them at once.
   */
  readonly drainMs?: number | undefined;
  /**
   * Send console.log, info, debug (and the console's other stdout methods)
   * to stderr while serving, restored on close. Default: true when the
   * output is process.stdout, whose every byte must be JSON-RPC.
   */
  readonly consoleToStderr?: boolean | undefined;
}

/** A stdio connection being served: `closed` resolves when it ends, `close()` ends it. */
export interface StdioHandle {
  /** Resolves once the connection is gone (input ended or failed, output failed, or `close()`). */
  readonly closed: Promise<void>;
  /** Ends the connection and stops reading input. Idempotent. */
  close(): void;
}

function checkedConnId(value: unknown): ConnId {
  if (value === undefined) return DEFAULT_CONN_ID;
  if (typeof value !== 'string' || value.length === 0) throw new ConfigError('connId', 'connId must be a non-empty string');
  return value;
}

function checkedPrincipal(value: unknown): Principal | undefined {
  if (value === undefined) return undefined;
  if (!isPrincipal(value)) throw new ConfigError('principal', 'principal must be a Principal made by makePrincipal');
  return value;
}

/** Serves one connection over newline-delimited JSON on `process.stdin`/`process.stdout` (or the streams given). While it owns stdout, the console's stdout methods go to stderr. */
export function serveStdio(server: McpServer, options: StdioOptions = {}): StdioHandle {
  const maxLineBytes = positiveIntegerOption('maxLineBytes', options.maxLineBytes, DEFAULT_MAX_LINE_BYTES);
  const connId = checkedConnId(options.connId);
  const principal = checkedPrincipal(options.principal);
  const drainMs = nonNegativeIntegerOption('drainMs', options.drainMs, DEFAULT_DRAIN_MS);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const moveConsole = booleanOption('consoleToStderr', options.consoleToStderr, output === process.stdout);
  const logger = server.logger;
  const splitter = new LineSplitter(maxLineBytes);
  // One client per connection, repeating its modern envelope: parsed once (repeated-envelope.ts).
  const envelopes = new RepeatedEnvelopeParser();
  const inbound = new Subject<unknown>();

  let finished = false;
  let awaitingDrain = false;
  /** Input ended: the connection lives on until its calls in flight answer or drainMs passes (server.connect's drainMs). */
  let ended = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const onDrain = () => {
    awaitingDrain = false;
    if (!finished) input.resume();
  };

  const writer = new BurstWriter(
    (text) => {
      try {
        return output.write(text);
      } catch (err) {
        // A Writable whose write throws is an output that failed, like one that emits 'error'.
        onOutputError(err);
        return true;
      }
    },
    () => {
      if (awaitingDrain) return;
      awaitingDrain = true;
      input.pause();
      output.once('drain', onDrain);
    },
  );

  const write = (message: OutboundMessage) => {
    if (finished) return;
    const line = encodeJsonLine(message);
    if (line === null) {
      logger.error({ connId, method: (message as { method?: unknown }).method }, 'stdio: outbound notification is not JSON-serialisable; not sent');
      return;
    }
    writer.write(line);
  };

  const onLine = (event: LineEvent) => {
    if (finished) return;
    if (event.kind === 'overlong') {
      logger.warn({ connId, maxLineBytes }, 'stdio: line too long, skipped');
      write(parseError(`line exceeds maxLineBytes (${event.limit} bytes)`));
      return;
    }
    const decoded = decodeJsonLine(event.bytes, envelopes.parse);
    if (decoded.kind === 'blank') return;
    if (decoded.kind === 'undecodable') {
      logger.debug({ connId, detail: decoded.detail }, 'stdio: undecodable line');
      write(parseError(decoded.detail));
      return;
    }
    inbound.next(decoded.message);
  };

  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (const event of splitter.push(bytes)) onLine(event);
  };

  const onEnd = () => {
    for (const event of splitter.end()) onLine(event);
    if (finished) return;
    if (drainMs === 0) {
      finish();
      return;
    }
    // The connection completes once its calls in flight have answered, or drainMs has passed: then finish.
    ended = true;
    inbound.complete();
  };

  // Destroyed without 'end': the peer is gone, and a half-received last line is not a message.
  // After 'end' it is the stream closing behind it: the drain decides.
  const onClose = () => {
    if (!ended) finish();
  };

  const onInputError = (err: unknown) => {
    logger.warn({ connId, err }, 'stdio: input failed; closing the connection');
    finish();
  };

  const onOutputError = (err: unknown) => {
    logger.warn({ connId, err }, 'stdio: output failed; closing the connection');
    finish();
  };

  const finish = () => {
    if (finished) return;
    // What was answered before the end still goes out (a last line without its newline included).
    writer.flush();
    finished = true;
    restoreConsole();
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onClose);
    input.off('error', onInputError);
    output.off('error', onOutputError);
    output.off('drain', onDrain);
    connection.unsubscribe();
    inbound.complete();
    resolveClosed();
  };

  const restoreConsole = moveConsole ? consoleToStderr() : () => {};
  // Subscribed before the first byte is read, so no reply can be missed.
  const connection = server.connect(connId, inbound, { ...connectOptionsOf('stdio', undefined, principal), drainMs }).subscribe(
    guardedObserver(logger, 'stdio', { next: write, complete: finish }),
  );
  output.on('error', onOutputError);
  input.on('error', onInputError);
  if (input.readableEnded || input.destroyed) {
    queueMicrotask(finish);
  } else {
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('close', onClose);
    input.resume();
  }

  return {
    closed,
    close: () => {
      if (finished) return;
      // Paused, our end of stdin no longer keeps the process alive.
      input.pause();
      // We end a connection that still has its output: its listen streams are told (finish flushes it).
      server.cancelListens(connId, 'the server closed the connection');
      finish();
    },
  };
}

/*
 * Newline-delimited JSON, one message a line: splitting a byte stream into
 * bounded lines (LineSplitter), decoding a line's bytes into a message (or
 * the reason it is not one) and encoding a message as a line.
 * Decoding never throws: invalid UTF-8 and invalid JSON are answers, and a
 * blank line is nothing at all (peers may pad between messages).
 */
/**
 * LineSplitter: byte chunks in, newline-terminated lines out, in bounded
 * memory. A line is the bytes before `\n`, less one trailing `\r` (CRLF).
 *
 * A line longer than `maxLineBytes` is reported once, as soon as it is known
 * to be too long, and its remaining bytes are skipped up to the next `\n`
 * without being kept: what the splitter holds never exceeds
 * `maxLineBytes + 1` bytes (the +1 is a `\r` that may turn out to be half of
 * a CRLF). `end()` flushes a final line that had no newline.
 */
export type LineEvent =
  | { readonly kind: 'line'; readonly bytes: Buffer }
  | { readonly kind: 'overlong'; readonly limit: number };

const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  private pieces: Buffer[] = [];
  private pending = 0;
  private discarding = false;

  constructor(readonly maxLineBytes: number) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`);
    }
  }

  /** Bytes of the unfinished line currently held. */
  get bufferedBytes(): number {
    return this.pending;
  }

  push(chunk: Uint8Array): LineEvent[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: LineEvent[] = [];
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(LF, start);
      const end = newline === -1 ? bytes.length : newline;
      if (!this.discarding) this.append(bytes.subarray(start, end), newline !== -1, events);
      if (newline === -1) break;
      this.finishLine(events);
      start = newline + 1;
    }
    return events;
  }

  /** The input ended: a last line without a newline still counts; a half-skipped one does not. */
  end(): LineEvent[] {
    const events: LineEvent[] = [];
    if (this.discarding) this.reset();
    else if (this.pending > 0) this.finishLine(events);
    return events;
  }

  private append(piece: Buffer, completesLine: boolean, events: LineEvent[]): void {
    if (this.pending + piece.length > this.maxLineBytes + 1) {
      events.push({ kind: 'overlong', limit: this.maxLineBytes });
      this.reset();
      this.discarding = true;
      return;
    }
    if (piece.length === 0) return;
    // A piece that outlives this chunk is copied, so a retained line never pins a whole chunk.
    this.pieces.push(completesLine ? piece : Buffer.from(piece));
    this.pending += piece.length;
  }

  private finishLine(events: LineEvent[]): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.pending);
    this.reset();
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    events.push(line.length > this.maxLineBytes ? { kind: 'overlong', limit: this.maxLineBytes } : { kind: 'line', bytes: line });
  }

  private reset(): void {
    this.pieces = [];
    this.pending = 0;
  }
}

export type DecodedLine =
  | { readonly kind: 'message'; readonly message: unknown }
  | { readonly kind: 'blank' }
  | { readonly kind: 'undecodable'; readonly detail: string };

const BLANK: DecodedLine = { kind: 'blank' };

/** Strict: a wrong byte is an undecodable line, not a U+FFFD that might still parse. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `parse`: JSON.parse, or a connection's RepeatedEnvelopeParser (same results, same throws). */
export function decodeJsonLine(bytes: Uint8Array, parse: (text: string) => unknown = JSON.parse): DecodedLine {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { kind: 'undecodable', detail: 'invalid UTF-8' };
  }
  if (text.trim().length === 0) return BLANK;
  try {
    return { kind: 'message', message: parse(text) };
  } catch {
    return { kind: 'undecodable', detail: 'invalid JSON' };
  }
}

/**
 * A message as one line (JSON never contains a raw newline). A reply that
 * cannot be serialised becomes an internal error for its id; null for any
 * other message that cannot be (see encodeMessage).
 */
export function encodeJsonLine(message: OutboundMessage): string | null {
  const text = encodeMessage(message);
  return text === null ? null : `${text}\n`;
}

/*
 * BurstWriter: the first message of an event-loop turn is written at once;
 * the ones that follow in the same turn are joined, a few at a time, and
 * the rest at the end of the turn (setImmediate).
 *
 * Measured on stdio (bench/): one write per message costs a syscall each,
 * which is most of a reply's cost when a thousand timers finish together;
 * joining a whole turn into one write starves a peer that waits for its
 * first reply (a closed loop of 16 ran at half speed). Writing the first at
 * once and the rest in small groups keeps the peer busy and the syscalls few.
 */
export const GROUP_SIZE = 8;

export class BurstWriter {
  private group: string[] = [];
  private inTurn = false;

  /** `sink` returns false when its buffer is full (Writable.write's contract); `onFull` is then called. */
  constructor(
    private readonly sink: (text: string) => boolean,
    private readonly onFull: () => void,
  ) {}

  write(text: string): void {
    if (!this.inTurn) {
      this.inTurn = true;
      setImmediate(() => this.endTurn());
      this.emit(text);
      return;
    }
    this.group.push(text);
    if (this.group.length >= GROUP_SIZE) this.flush();
  }

  /** Writes whatever is held now (before the output is closed). */
  flush(): void {
    if (this.group.length === 0) return;
    const text = this.group.join('');
    this.group = [];
    this.emit(text);
  }

  private endTurn(): void {
    this.inTurn = false;
    this.flush();
  }

  private emit(text: string): void {
    if (!this.sink(text)) this.onFull();
  }
}
