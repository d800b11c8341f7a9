/**
 * The notes board's view: the HTML a host renders for `notes_board` (an MCP
 * Apps UI resource, ui://notes/board). One self-contained document with no
 * network access at all, so the spec's default CSP is all it needs. It
 * speaks the host's postMessage JSON-RPC by hand (the spec shows that no SDK
 * is needed): `ui/initialize`, then it renders the notes of every
 * `ui/notifications/tool-result`, and a Delete button calls `delete_note`
 * through the host, which asks the person to approve before rxmcp runs it.
 * Note text is set with textContent, never parsed as HTML.
 */
export const NOTES_BOARD_URI = 'ui://notes/board';

export const NOTES_BOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Notes board</title>
<style>
  body { font: 14px/1.4 var(--font-sans, system-ui, sans-serif); margin: 0; padding: 12px;
         color: var(--color-text-primary, #1b1b1f); background: var(--color-background-primary, #fff); }
  h1 { font-size: 16px; margin: 0 0 8px; }
  ul { list-style: none; margin: 0; padding: 0; }
  li { display: flex; gap: 8px; align-items: center; justify-content: space-between;
       border: 1px solid #d0d0d7; border-radius: 6px; padding: 6px 8px; margin-bottom: 6px; }
  button { font: inherit; border: 1px solid #b00020; color: #b00020; background: #fff; border-radius: 4px; padding: 2px 10px; cursor: pointer; }
  button:disabled { opacity: 0.5; cursor: default; }
  #status { margin: 8px 0 0; min-height: 1.4em; color: #444; }
  #status[data-kind="error"] { color: #b00020; }
  #status[data-kind="done"] { color: #0a6b2c; }
</style>
</head>
<body>
<h1>Notes</h1>
<ul id="notes"></ul>
<p id="status" role="status">Waiting for the host...</p>
<script>
(() => {
  'use strict';
  const host = window.parent;
  const list = document.getElementById('notes');
  const statusLine = document.getElementById('status');
  const pending = new Map();
  let nextId = 1;

  const send = (message) => host.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*');
  const request = (method, params) => {
    const id = nextId++;
    send({ id, method, params });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  };
  const status = (text, kind) => {
    statusLine.textContent = text;
    statusLine.dataset.kind = kind;
  };
  const textOf = (result) => (result.content || []).filter((item) => item.type === 'text').map((item) => item.text).join(' ');

  function render(notes) {
    list.replaceChildren(...notes.map((note) => {
      const item = document.createElement('li');
      item.dataset.noteId = note.id;
      const text = document.createElement('span');
      text.textContent = note.text;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Delete';
      remove.setAttribute('aria-label', 'Delete note ' + note.id);
      remove.addEventListener('click', () => deleteNote(note.id));
      item.append(text, remove);
      return item;
    }));
    if (notes.length === 0) status('No notes left.', 'done');
  }

  function showBoard(result) {
    if (result.isError) return status(textOf(result), 'error');
    const notes = result.structuredContent && result.structuredContent.notes;
    if (!Array.isArray(notes)) return status('The board got no notes to show.', 'error');
    render(notes);
  }

  async function deleteNote(id) {
    for (const button of list.querySelectorAll('button')) button.disabled = true;
    status('Deleting note ' + id + ': approve it in your host.', 'busy');
    try {
      const result = await request('tools/call', { name: 'delete_note', arguments: { id } });
      const board = await request('tools/call', { name: 'notes_board', arguments: {} });
      showBoard(board);
      status(textOf(result), result.isError ? 'error' : 'done');
    } catch (err) {
      status(String(err && err.message || err), 'error');
    } finally {
      for (const button of list.querySelectorAll('button')) button.disabled = false;
    }
  }

  window.addEventListener('message', (event) => {
    if (event.source !== host) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    } else if (message.method === 'ui/notifications/tool-result') {
      showBoard(message.params);
    } else if (message.id !== undefined) {
      // ui/resource-teardown and ping need nothing but an answer; anything else is not ours.
      const known = message.method === 'ui/resource-teardown' || message.method === 'ping';
      send(known ? { id: message.id, result: {} } : { id: message.id, error: { code: -32601, message: 'Method not found' } });
    }
  });

  request('ui/initialize', {
    appInfo: { name: 'rxmcp-notes-board', version: '1.0.0' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  }).then(
    () => {
      send({ method: 'ui/notifications/initialized', params: {} });
      status('Connected; waiting for the notes...', 'busy');
    },
    (err) => status('The host refused the view: ' + err.message, 'error'),
  );
})();
</script>
</body>
</html>
`;
