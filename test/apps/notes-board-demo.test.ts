/**
 * The demo's notes board without a browser: `notes_board` is listed with its
 * view, answers the notes as text (the fallback for hosts without MCP Apps)
 * and as structuredContent (what the view renders), and the view is one
 * self-contained document that reaches no origin (the spec's default CSP).
 */
import { describe, expect, test } from 'vitest';
import { createDemoServer } from '../../examples/demo/server.js';
import { NOTES_BOARD_URI } from '../../examples/demo/notes-board-view.js';
import { APPS_EXTENSION_ID, UI_MIME_TYPE } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';

type Reply = { result: Record<string, any> };
const call = async (server: ReturnType<typeof createDemoServer>, message: unknown) => (await server.handleMessage(message)) as Reply;

describe('the notes board app', () => {
  test('declared, listed with its view, and answering the notes as text and as structured content', async () => {
    const server = createDemoServer();
    const discover = await call(server, modernRpc(1, 'server/discover'));
    expect(discover.result.capabilities.extensions[APPS_EXTENSION_ID]).toEqual({ mimeTypes: [UI_MIME_TYPE] });
    const tools = (await call(server, modernRpc(2, 'tools/list'))).result.tools as Array<Record<string, any>>;
    expect(tools.find((tool) => tool.name === 'notes_board')!._meta.ui).toEqual({ resourceUri: NOTES_BOARD_URI });
    const board = await call(server, modernRpc(3, 'tools/call', { name: 'notes_board', arguments: {} }));
    expect(board.result.structuredContent.notes.map((note: { id: string }) => note.id)).toEqual(['1', '2', '3']);
    expect(board.result.content[0].text).toContain('(2) Only the connection that was asked may answer an elicitation.');
  });

  test('the view: the MCP Apps MIME type, a border asked for, and no origin outside the document', async () => {
    const server = createDemoServer();
    const read = await call(server, modernRpc(1, 'resources/read', { uri: NOTES_BOARD_URI }));
    const [view] = read.result.contents as Array<{ mimeType: string; text: string; _meta: unknown }>;
    expect(view!.mimeType).toBe(UI_MIME_TYPE);
    expect(view!._meta).toEqual({ ui: { prefersBorder: true } });
    expect(view!.text).toMatch(/^<!doctype html>/);
    expect(view!.text).not.toMatch(/\b(?:src|href)=|https?:\/\/|innerHTML/);
    expect(view!.text).toContain("name: 'delete_note'");
  });
});
