/**
 * Runs a body against a freshly started server and always stops it, so no
 * scenario can leave a child behind; a failure carries the server's stderr.
 */
import { startServer, stderrGist, type RunningServer } from '../server-process.js';
import type { Target } from '../targets.js';

export async function withServer<T>(target: Target, body: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(target.command);
  try {
    return await body(server);
  } catch (error) {
    const gist = stderrGist(server.stderrTail());
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(gist.length > 0 ? `${message}; server stderr: ${gist}` : message);
  } finally {
    await server.stop();
  }
}
