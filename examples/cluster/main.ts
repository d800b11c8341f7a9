#!/usr/bin/env node
/**
 * `npm run cluster`: a whole deployment on this machine with one command. It
 * starts a redis-server on a free loopback port (unless REDIS_URL names
 * one), three rxmcp nodes (node.ts) sharing it, and the round-robin proxy
 * (proxy.ts) in this process; prints the URLs to point a client at; and on
 * SIGINT/SIGTERM stops everything it started, by PID, newest first.
 *
 * Environment: REDIS_URL (use this Redis instead of starting one), NODES
 * (default 3), PORT (the proxy's port, default 3000; 0 picks a free one),
 * LOG_LEVEL (the nodes' stderr log level, default warn).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startNode, startRedisServer, type Child } from './processes.js';
import { startProxy, type ProxyHandle } from './proxy.js';
import { INSPECTOR } from '../demo/inspector.js';

const NODE_SCRIPT = fileURLToPath(new URL('./node.js', import.meta.url));

function count(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  return parsed;
}

function banner(origin: string, nodes: ReadonlyArray<{ id: string; url: string; pid: number }>, redis: string, redisPid: number | undefined): string {
  return `rxmcp cluster example: ${nodes.length} nodes behind a round-robin proxy (no stickiness)
  Streamable HTTP   ${origin}/mcp      (2025-11-25 sessions and 2026-07-28 stateless requests)
  Legacy HTTP+SSE   ${origin}/sse
  Redis             ${redis}${redisPid === undefined ? ' (given)' : `  (pid ${redisPid})`}
${nodes.map((node) => `  node ${node.id.padEnd(8)} ${node.url}  (pid ${node.pid})`).join('\n')}
  Try it:  npx ${INSPECTOR} --cli ${origin}/mcp --transport http --method tools/call --tool-name whoami
  Stop it: Ctrl-C
`;
}

async function main(): Promise<void> {
  const nodeCount = count('NODES', process.env.NODES, 3, 1, 16);
  const proxyPort = count('PORT', process.env.PORT, 3000, 0, 65535);
  const started: Child[] = [];
  let proxy: ProxyHandle | undefined;
  let stopping = false;
  const stopAll = async () => {
    if (stopping) return;
    stopping = true;
    await proxy?.close();
    for (const child of started.reverse()) await child.stop();
  };
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  try {
    let redisUrl = process.env.REDIS_URL;
    let redisPid: number | undefined;
    if (redisUrl === undefined || redisUrl === '') {
      const redis = await startRedisServer();
      started.push(redis);
      redisUrl = redis.url;
      redisPid = redis.pid;
    }
    // A fresh deployment name per run: a REDIS_URL someone else uses keeps its keys apart.
    const serverId = `cluster-example-${randomBytes(3).toString('hex')}`;
    const env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
    const nodes: Array<{ id: string; url: string; pid: number }> = [];
    for (let i = 0; i < nodeCount; i++) {
      const id = `node-${String.fromCharCode(97 + i)}`;
      const node = await startNode(NODE_SCRIPT, ['--redis', redisUrl, '--server-id', serverId, '--node-id', id], env);
      node.process.stderr?.pipe(process.stderr);
      started.push(node);
      nodes.push({ id, url: node.url, pid: node.pid });
    }
    proxy = await startProxy({ upstreams: nodes.map((node) => node.url), port: proxyPort });
    process.stdout.write(banner(proxy.origin, nodes, redisUrl, redisPid));
    process.stdout.write(`READY ${proxy.origin}/mcp\n`);
    const reason = await Promise.race([
      stopped,
      // A node that dies on its own is reported, and the rest keep serving (that is what the cluster is for).
      new Promise<never>(() => {
        for (const child of started) {
          child.process.once('exit', (code, signal) => {
            if (!stopping) process.stderr.write(`cluster: pid ${child.pid} exited (${String(code ?? signal)})\n`);
          });
        }
      }),
    ]);
    process.stderr.write(`cluster: ${reason}, stopping\n`);
  } finally {
    await stopAll();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
