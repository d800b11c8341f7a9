/**
 * The cluster bench's client: one modern (2026-07-28) tools/call per POST on
 * a keep-alive agent, declaring the elicitation capability so an approval
 * can be asked, and the approval round trip (the ask, then the retry with
 * the approval and the ticket) as one measured step. Throws on anything but
 * the expected answer, so the closed loop counts failures instead of timing them.
 */
import { request, type Agent } from 'node:http';

const MODERN = '2026-07-28';
let nextId = 1;

interface Reply {
  result?: { resultType?: string; requestState?: string; isError?: boolean; content?: Array<{ text?: string }> };
  error?: { code: number; message: string };
}

function post(agent: Agent, url: URL, body: string, name: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('error', reject);
        res.once('end', () => {
          // An SSE answer (only when the server had something to send first) carries the reply as its last data line.
          const json = String(res.headers['content-type']).includes('text/event-stream')
            ? (text.split('\n').filter((line) => line.startsWith('data:')).at(-1) ?? '').slice(5)
            : text;
          try {
            resolve(JSON.parse(json) as Reply);
          } catch {
            reject(new Error(`HTTP ${String(res.statusCode)}: ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

export function toolCall(agent: Agent, url: URL, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Reply> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...extra,
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
    },
  });
  return post(agent, url, body, name);
}

function expectComplete(reply: Reply, what: string): void {
  if (reply.error !== undefined) throw new Error(`${what}: ${reply.error.code} ${reply.error.message}`);
  if (reply.result?.resultType !== 'complete' || reply.result.isError === true) {
    throw new Error(`${what}: ${JSON.stringify(reply.result).slice(0, 200)}`);
  }
}

export async function echo(agent: Agent, url: URL): Promise<void> {
  expectComplete(await toolCall(agent, url, 'echo', { text: 'hello, benchmark' }), 'echo');
}

export async function touch(agent: Agent, url: URL): Promise<void> {
  expectComplete(await toolCall(agent, url, 'touch', { uri: 'bench://touched' }), 'touch');
}

/** The ask (a ticket admitted) and the approved retry (the ticket taken): two POSTs, one step. */
export async function approvalRoundTrip(agent: Agent, url: URL): Promise<void> {
  const args = { text: 'approved, benchmark' };
  const asked = await toolCall(agent, url, 'approve_echo', args);
  const state = asked.result?.requestState;
  if (asked.result?.resultType !== 'input_required' || typeof state !== 'string') throw new Error(`approve_echo ask: ${JSON.stringify(asked).slice(0, 200)}`);
  const answer = { 'rxmcp.approve': { action: 'accept', content: { approve: true } } };
  expectComplete(await toolCall(agent, url, 'approve_echo', args, { requestState: state, inputResponses: answer }), 'approve_echo retry');
}
