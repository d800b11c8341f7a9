/**
 * The built demo (`dist/examples/demo/main.js`; `npm test` builds first) as a
 * real child process, for the hostile-input tests: one serving Streamable
 * HTTP, legacy SSE and WebSocket on one 127.0.0.1 port, or one on stdio.
 * A crash is then what it would be in production: the process exits. Every
 * wait is bounded; `stop()` kills only the child this module spawned.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/examples/demo/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type Message = Record<string, any>;

/** `promise`, or a rejection naming `what` after `ms` of real time (network I/O has no virtual clock). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class Child {
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(readonly process: ChildProcess) {
    process.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = new Promise((resolve) => process.once('exit', (code) => resolve(code)));
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    this.process.kill('SIGKILL');
    await within(this.exited, 5000, 'demo exit');
  }
}

function spawnDemo(args: string[], stdin: 'pipe' | 'ignore'): Child {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
  return new Child(
    spawn(process.execPath, [MAIN, ...args], {
      cwd: ROOT,
      stdio: [stdin, 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
    }),
  );
}

export interface NetworkDemo {
  readonly child: Child;
  readonly urls: { readonly mcp: string; readonly sse: string; readonly ws: string; readonly base: string };
}

export async function startNetworkDemo(): Promise<NetworkDemo> {
  const child = spawnDemo(['--port', '0'], 'ignore');
  const urls = await within(
    new Promise<NetworkDemo['urls']>((resolve, reject) => {
      child.process.once('exit', (code) => reject(new Error(`demo exited early (${code}): ${child.stderr}`)));
      child.process.stderr!.on('data', () => {
        const mcp = /Streamable HTTP\s+(\S+)/.exec(child.stderr)?.[1];
        const sse = /Legacy HTTP\+SSE\s+(\S+)/.exec(child.stderr)?.[1];
        const ws = /WebSocket\s+(\S+)/.exec(child.stderr)?.[1];
        if (mcp && sse && ws && child.stderr.includes('Stop it')) resolve({ mcp, sse, ws, base: new URL(mcp).origin });
      });
    }),
    10_000,
    'demo start',
  );
  return { child, urls };
}

/** The stdio demo: lines in, parsed lines out. */
export class StdioDemo {
  readonly child: Child;
  private readonly lines: Message[] = [];
  private buffered = '';
  private read = 0;
  private wake: (() => void) | undefined;

  constructor() {
    this.child = spawnDemo(['--stdio'], 'pipe');
    this.child.process.stdout!.setEncoding('utf8');
    this.child.process.stdout!.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) !== -1) {
        this.lines.push(JSON.parse(this.buffered.slice(0, newline)) as Message);
        this.buffered = this.buffered.slice(newline + 1);
      }
      this.wake?.();
    });
    this.child.process.once('exit', () => this.wake?.());
  }

  sendLine(text: string): void {
    this.child.process.stdin!.write(`${text}\n`);
  }

  send(message: unknown): void {
    this.sendLine(JSON.stringify(message));
  }

  /** The next line the demo writes; rejects after `ms` or when it exits first. */
  next(ms = 5000): Promise<Message> {
    const take = async (): Promise<Message> => {
      while (this.read >= this.lines.length) {
        if (!this.child.alive) throw new Error(`the demo exited (${this.child.process.exitCode}): ${this.child.stderr}`);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      return this.lines[this.read++]!;
    };
    return within(take(), ms, 'stdio demo reply');
  }

  /** Lines written and not read yet. */
  get unread(): number {
    return this.lines.length - this.read;
  }
}
