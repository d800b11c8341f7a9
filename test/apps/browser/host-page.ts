/**
 * The MCP Apps host the browser test drives: a page built on the official
 * ext-apps host bridge (AppBridge, PostMessageTransport) and the official
 * MCP client over Streamable HTTP to rxmcp on the page's own loopback origin.
 * Bundled for the browser by bundle-host.ts; nothing here runs in Node.
 *
 * What a person sees: a "Show the notes board" button (the model asking for
 * the board), the board's view in a sandboxed iframe with the CSP and
 * permissions its `_meta.ui` asks for, and an approval dialog whenever rxmcp
 * asks (elicitation) before a destructive tool runs. Every request the host
 * sends to rxmcp is recorded in `window.host.sent` for the test to check.
 */
import { AppBridge, buildAllowAttribute, getToolUiResourceUri, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

interface HostRecord {
  /** Every request and notification the host's client sent to rxmcp, in order. */
  readonly sent: Array<{ method: string; params: unknown }>;
  /** What went wrong, for the test's failure message. */
  readonly errors: string[];
}

declare global {
  interface Window {
    host: HostRecord;
  }
}

const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';
const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
const HOST_INFO = { name: 'rxmcp-test-host', version: '1.0.0' };

window.host = { sent: [], errors: [] };

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const setStatus = (text: string) => {
  element('host-status').textContent = text;
};

/** The CSP the spec has a host build from `_meta.ui.csp`: its restrictive default, widened only by declared origins. */
function contentSecurityPolicy(csp: McpUiResourceMeta['csp']): string {
  const with_ = (base: string, domains: readonly string[] | undefined) => [base, ...(domains ?? [])].join(' ');
  const resources = csp?.resourceDomains;
  return [
    "default-src 'none'",
    `script-src ${with_("'self' 'unsafe-inline'", resources)}`,
    `style-src ${with_("'self' 'unsafe-inline'", resources)}`,
    `img-src ${with_("'self' data:", resources)}`,
    `font-src ${with_("'self'", resources)}`,
    `media-src ${with_("'self' data:", resources)}`,
    `connect-src ${csp?.connectDomains?.length ? csp.connectDomains.join(' ') : "'none'"}`,
    `frame-src ${csp?.frameDomains?.length ? csp.frameDomains.join(' ') : "'none'"}`,
    `base-uri ${csp?.baseUriDomains?.length ? csp.baseUriDomains.join(' ') : "'self'"}`,
  ].join('; ');
}

function withPolicy(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => head + meta) : meta + html;
}

/** The approval dialog: resolves with the person's answer to rxmcp's question. */
function askPerson(question: string): Promise<{ action: 'accept'; content: { approve: boolean } } | { action: 'decline' }> {
  const dialog = element<HTMLDivElement>('approval');
  element('approval-question').textContent = question;
  dialog.hidden = false;
  return new Promise((resolve) => {
    const answer = (approved: boolean) => {
      dialog.hidden = true;
      element('approve').onclick = null;
      element('decline').onclick = null;
      resolve(approved ? { action: 'accept', content: { approve: true } } : { action: 'decline' });
    };
    element('approve').onclick = () => answer(true);
    element('decline').onclick = () => answer(false);
  });
}

async function connectToServer(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', location.href));
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message) window.host.sent.push({ method: message.method, params: message.params });
    return send(message, options);
  };
  const client = new Client(HOST_INFO, {
    capabilities: { elicitation: {}, extensions: { [APPS_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } },
  });
  client.setRequestHandler('elicitation/create', (request) => askPerson(String(request.params.message)));
  await client.connect(transport);
  return client;
}

/** What the model would do: call the tool, then render its view with the result, the view's calls going through the bridge to rxmcp. */
async function showBoard(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === 'notes_board');
  const uri = tool === undefined ? undefined : getToolUiResourceUri(tool);
  if (tool === undefined || uri === undefined) throw new Error('notes_board is not listed with a view');
  const result = await client.callTool({ name: tool.name, arguments: {} });
  const read = await client.readResource({ uri });
  const contents = read.contents[0];
  if (contents === undefined || contents.mimeType !== VIEW_MIME_TYPE || !('text' in contents)) throw new Error(`${uri} is not a view`);
  const ui = (contents._meta?.ui ?? {}) as McpUiResourceMeta;

  const frame = document.createElement('iframe');
  frame.id = 'app';
  frame.title = tool.name;
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('allow', buildAllowAttribute(ui.permissions));
  frame.style.border = ui.prefersBorder === false ? 'none' : '1px solid #888';
  element('views').append(frame);

  const bridge = new AppBridge(client, HOST_INFO, { serverTools: {}, serverResources: {} });
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: {} });
    void bridge.sendToolResult(result as Parameters<AppBridge['sendToolResult']>[0]);
  };
  // Listening before the document exists: the view's first message is its ui/initialize.
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = withPolicy(contents.text, contentSecurityPolicy(ui.csp));
}

async function main(): Promise<void> {
  const client = await connectToServer();
  setStatus('connected');
  const show = element<HTMLButtonElement>('show-board');
  show.disabled = false;
  show.onclick = () => {
    show.disabled = true;
    showBoard(client).then(
      () => setStatus('board shown'),
      (err: unknown) => {
        window.host.errors.push(String(err));
        setStatus(`failed: ${String(err)}`);
      },
    );
  };
}

main().catch((err: unknown) => {
  window.host.errors.push(String(err));
  setStatus(`failed: ${String(err)}`);
});
