/**
 * MCP Apps on direct calls of both eras: the io.modelcontextprotocol/ui
 * declaration with its mimeTypes, views listed and read as
 * text/html;profile=mcp-app with their _meta.ui on both, tools linked by
 * _meta.ui (with the legacy flat key), registerApp all or none, and the boot
 * check that refuses a tool whose view is not served.
 */
import { describe, expect, test } from 'vitest';
import { APPS_EXTENSION_ID, appsExtension, createServer, defineAppTool, Registry, UI_MIME_TYPE, type ServerOptions } from '../../lib/index.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';
import { configErrorOf } from '../helpers/config-error.js';

const expectConfigError = (run: () => unknown, option: string) => expect(configErrorOf(run).option).toBe(option);

const VIEW = '<!doctype html><html><body><p>board</p></body></html>';
const rpc = (id: unknown, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

type Reply = { result: Record<string, any>; error?: undefined } | { error: { code: number; message: string; data?: unknown }; result?: undefined };

function boardRegistry(): Registry {
  return new Registry().registerApp(
    {
      uri: 'ui://notes/board',
      name: 'board',
      ui: { csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] }, permissions: { clipboardWrite: {} }, prefersBorder: true },
      html: VIEW,
    },
    [
      defineAppTool({ name: 'show_board', inputSchema: { type: 'object' }, ui: {}, handler: () => 'the board' }),
      defineAppTool({ name: 'refresh_board', inputSchema: { type: 'object' }, ui: { visibility: ['app'] }, handler: () => 'refreshed' }),
    ],
  );
}

function server(registry = boardRegistry(), more: ServerOptions = {}) {
  return createServer({ registry, extensions: [appsExtension()], ...more });
}

const call = async (s: ReturnType<typeof server>, message: unknown, options: Parameters<ReturnType<typeof server>['handleMessage']>[1] = {}) =>
  (await s.handleMessage(message, options)) as Reply;

describe('declaration', () => {
  test('declared with the MIME type the spec names, in server/discover and initialize', async () => {
    expect(APPS_EXTENSION_ID).toBe('io.modelcontextprotocol/ui');
    expect(UI_MIME_TYPE).toBe('text/html;profile=mcp-app');
    const discover = await call(server(), modernRpc(1, 'server/discover'));
    expect(discover.result!.capabilities.extensions).toEqual({ [APPS_EXTENSION_ID]: { mimeTypes: ['text/html;profile=mcp-app'] } });
    const init = await call(server(), legacyInitialize('i'), { connId: 'c' });
    expect(init.result!.capabilities.extensions).toEqual({ [APPS_EXTENSION_ID]: { mimeTypes: ['text/html;profile=mcp-app'] } });
  });

  test('mimeTypes as given; an empty or malformed list refuses to build', () => {
    expect(appsExtension({ mimeTypes: ['text/html;profile=mcp-app', 'text/x-future'] }).settings).toEqual({ mimeTypes: ['text/html;profile=mcp-app', 'text/x-future'] });
    expectConfigError(() => appsExtension({ mimeTypes: [] }), 'extensions');
    expectConfigError(() => appsExtension({ mimeTypes: [''] }), 'extensions');
  });
});

describe('views and the tools linked to them', () => {
  test('tools/list: _meta.ui with resourceUri and visibility, and the legacy flat key for older hosts', async () => {
    const tools = (await call(server(), modernRpc(1, 'tools/list'))).result!.tools as Array<Record<string, any>>;
    expect(tools.map((tool) => [tool.name, tool._meta])).toEqual([
      ['show_board', { ui: { resourceUri: 'ui://notes/board' }, 'ui/resourceUri': 'ui://notes/board' }],
      ['refresh_board', { ui: { resourceUri: 'ui://notes/board', visibility: ['app'] }, 'ui/resourceUri': 'ui://notes/board' }],
    ]);
    expect(tools[0]).not.toHaveProperty('ui');
  });

  test('resources/list and resources/read: the MIME type and the same _meta.ui on the entry and on the contents', async () => {
    const s = server();
    const ui = {
      csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: true,
    };
    const listed = (await call(s, modernRpc(1, 'resources/list'))).result!.resources;
    expect(listed).toEqual([{ uri: 'ui://notes/board', name: 'board', mimeType: UI_MIME_TYPE, _meta: { ui } }]);
    const read = await call(s, modernRpc(2, 'resources/read', { uri: 'ui://notes/board' }));
    expect(read.result!.contents).toEqual([{ uri: 'ui://notes/board', mimeType: UI_MIME_TYPE, text: VIEW, _meta: { ui } }]);
  });

  test('a view whose html is a function of the read: a Promise answer, and a non-string answer is a crash, not content', async () => {
    const registry = new Registry()
      .registerUiResource({ uri: 'ui://hello/async', name: 'async', html: async (ctx) => `<p>${ctx.era}</p>` })
      .registerUiResource({ uri: 'ui://hello/broken', name: 'broken', html: () => 42 as unknown as string });
    const s = server(registry);
    const read = await call(s, modernRpc(1, 'resources/read', { uri: 'ui://hello/async' }));
    expect(read.result!.contents).toEqual([{ uri: 'ui://hello/async', mimeType: UI_MIME_TYPE, text: "<p>modern</p>" }]);
    expect(await call(s, modernRpc(2, 'resources/read', { uri: 'ui://hello/broken' }))).toMatchObject({ error: { code: -32603 } });
  });

  test('an app tool runs like any tool, and its view is read on the legacy wire too', async () => {
    const s = server();
    await s.handleMessage(legacyInitialize('i', { extensions: { [APPS_EXTENSION_ID]: { mimeTypes: [UI_MIME_TYPE] } } }), { connId: 'c' });
    expect((await call(s, rpc(1, 'tools/call', { name: 'show_board', arguments: {} }), { connId: 'c' })).result!.content).toEqual([{ type: 'text', text: 'the board' }]);
    expect((await call(s, rpc(2, 'resources/read', { uri: 'ui://notes/board' }), { connId: 'c' })).result!.contents[0].mimeType).toBe(UI_MIME_TYPE);
  });

  test('registerAppTool links one tool to a view registered on its own', async () => {
    const registry = new Registry()
      .registerUiResource({ uri: 'ui://weather/view', name: 'weather', html: VIEW })
      .registerAppTool({
        name: 'forecast',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        ui: { resourceUri: 'ui://weather/view', visibility: ['model', 'app'] },
        handler: ({ city }) => `Sunny in ${city}`,
      });
    const s = server(registry);
    expect(registry.tool('forecast')!._meta).toEqual({ ui: { resourceUri: 'ui://weather/view', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://weather/view' });
    const reply = await call(s, modernRpc(1, 'tools/call', { name: 'forecast', arguments: { city: 'Oslo' } }));
    expect(reply.result!.content).toEqual([{ type: 'text', text: 'Sunny in Oslo' }]);
  });
});

describe('refused at registration, nothing changed', () => {
  const html = VIEW;
  test('a view outside ui://, malformed ui metadata, _meta.ui given by hand, no html', () => {
    const registry = new Registry();
    expectConfigError(() => registry.registerUiResource({ uri: 'https://example.com/view', name: 'v', html }), 'uri');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://', name: 'v', html }), 'uri');
    // A space would smuggle a second CSP source (or a keyword) into the host's policy.
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v', html, ui: { csp: { connectDomains: ["https://a.example 'unsafe-eval'"] } } }), 'ui');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v', html, ui: { csp: { scriptDomains: ['https://a.example'] } as never } }), 'ui');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v', html, ui: { permissions: { usb: {} } as never } }), 'ui');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v', html, ui: { permissions: { camera: true } as never } }), 'ui');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v', html, ui: { prefersBorder: 'yes' as never } }), 'ui');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v', html, _meta: { ui: {} } }), '_meta');
    expectConfigError(() => registry.registerUiResource({ uri: 'ui://v', name: 'v' } as never), 'html');
    expect(registry.resources()).toEqual([]);
  });

  test('an app tool with a resourceUri outside ui://, a malformed visibility, or _meta.ui by hand', () => {
    const registry = new Registry();
    const tool = { name: 't', handler: () => 'x' };
    expectConfigError(() => registry.registerAppTool({ ...tool, ui: { resourceUri: 'https://example.com' } }), 'ui');
    expectConfigError(() => registry.registerAppTool({ ...tool, ui: { resourceUri: 'ui://v', visibility: [] } }), 'ui');
    expectConfigError(() => registry.registerAppTool({ ...tool, ui: { resourceUri: 'ui://v', visibility: ['app', 'app'] } }), 'ui');
    expectConfigError(() => registry.registerAppTool({ ...tool, ui: { resourceUri: 'ui://v', visibility: ['agent' as never] } }), 'ui');
    expectConfigError(() => registry.registerAppTool({ ...tool, ui: { resourceUri: 'ui://v' }, _meta: { ui: { resourceUri: 'ui://w' } } }), '_meta');
    expect(registry.tools()).toEqual([]);
  });

  test('registerApp is all or none: a taken tool name, or a tool linking another view, registers nothing', () => {
    const registry = new Registry().registerTool({ name: 'taken', handler: () => 'x' });
    const view = { uri: 'ui://app/view', name: 'view', html };
    expectConfigError(() => registry.registerApp(view, [defineAppTool({ name: 'fresh', ui: {}, handler: () => 'x' }), defineAppTool({ name: 'taken', ui: {}, handler: () => 'x' })]), 'name');
    expectConfigError(() => registry.registerApp(view, [defineAppTool({ name: 'fresh', ui: { resourceUri: 'ui://app/other' }, handler: () => 'x' })]), 'ui');
    expect(registry.resources()).toEqual([]);
    expect(registry.tools().map((tool) => tool.name)).toEqual(['taken']);
    registry.registerApp(view, []);
    expectConfigError(() => registry.registerApp(view, [defineAppTool({ name: 'fresh', ui: {}, handler: () => 'x' })]), 'uri');
    expect(registry.tools().map((tool) => tool.name)).toEqual(['taken']);
  });

  test('createServer refuses a tool whose view is not served, or not served as a view', () => {
    const dangling = new Registry().registerAppTool({ name: 't', ui: { resourceUri: 'ui://missing' }, handler: () => 'x' });
    expectConfigError(() => server(dangling), 'extensions');
    const plain = new Registry()
      .registerResource({ uri: 'ui://plain', name: 'plain', mimeType: 'text/html', read: () => VIEW })
      .registerAppTool({ name: 't', ui: { resourceUri: 'ui://plain' }, handler: () => 'x' });
    expectConfigError(() => server(plain), 'extensions');
    // Served by a template of the view's MIME type: fine.
    const templated = new Registry()
      .registerResourceTemplate({ uriTemplate: 'ui://boards/{owner}', name: 'board', mimeType: UI_MIME_TYPE, read: () => VIEW })
      .registerAppTool({ name: 't', ui: { resourceUri: 'ui://boards/ada' }, handler: () => 'x' });
    expect(() => server(templated)).not.toThrow();
  });
});
