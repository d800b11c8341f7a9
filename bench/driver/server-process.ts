/**
 * A server under test as a child process. A stdio server's stdin/stdout are
 * the wire; a network server must print `READY <url>` on stdout within the
 * boot timeout. stderr is kept (its tail) so a server that dies says why.
 * `stop()` sends SIGTERM and, if the child lingers, SIGKILL.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface ServerCommand {
  /** argv; a leading "node" runs this same Node binary. */
  readonly argv: readonly string[];
  /** 'stdio' keeps stdout as the wire; 'network' waits for the READY line. */
  readonly wire: 'stdio' | 'network';
}

export interface RunningServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** The READY url of a network server; undefined for stdio. */
  readonly url: string | undefined;
  stderrTail(): string;
  stop(): Promise<void>;
}

const BOOT_TIMEOUT_MS = 20_000;

/** The line of a server's stderr worth putting in a report: its first error line, else its last line. */
export function stderrGist(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  return lines.find((l) => /^\w*Error\b/.test(l)) ?? lines.at(-1) ?? '';
}
const STDERR_TAIL_CHARS = 4000;

function waitForReadyLine(child: ChildProcessWithoutNullStreams, stderrTail: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const fail = (why: string) => {
      cleanup();
      reject(new Error(`${why}; server stderr: ${stderrGist(stderrTail())}`));
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /^READY (\S+)$/m.exec(seen);
      if (match?.[1] !== undefined) {
        cleanup();
        resolve(match[1]);
      }
    };
    const onExit = (code: number | null) => fail(`server exited (${String(code)}) before READY`);
    const timer = setTimeout(() => fail(`no READY line within ${BOOT_TIMEOUT_MS} ms`), BOOT_TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startServer(command: ServerCommand): Promise<RunningServer> {
  const [program, ...args] = command.argv;
  if (program === undefined) throw new Error('empty server command');
  const child = spawn(program === 'node' ? process.execPath : program, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (child.pid === undefined) throw new Error(`could not spawn ${command.argv.join(' ')}`);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const stderrTail = () => stderr;
  let exited = child.exitCode !== null;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const url = command.wire === 'network' ? await waitForReadyLine(child, stderrTail) : undefined;
  if (command.wire === 'network') child.stdout.resume();

  return {
    child,
    pid: child.pid,
    url,
    stderrTail,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(killer);
    },
  };
}
