/**
 * The host page for the browser test: host-page.ts bundled for the browser
 * with vite (in memory, nothing written), and the HTML that loads it.
 */
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';

const ENTRY = fileURLToPath(new URL('./host-page.ts', import.meta.url));

/** The host page's script, one ES module with its dependencies inside. */
export async function bundleHostPage(): Promise<string> {
  const output = await build({
    configFile: false,
    logLevel: 'silent',
    root: fileURLToPath(new URL('.', import.meta.url)),
    build: {
      write: false,
      minify: false,
      target: 'es2022',
      rollupOptions: { input: ENTRY, output: { format: 'es', entryFileNames: 'host.js' } },
    },
  });
  const outputs = (Array.isArray(output) ? output : [output]) as Rolldown.RolldownOutput[];
  const chunk = outputs.flatMap((result) => result.output).find((file) => file.type === 'chunk' && file.fileName === 'host.js');
  if (chunk === undefined || chunk.type !== 'chunk') throw new Error('vite produced no host.js');
  return chunk.code;
}

/** The host page: a button to show the board, the views, and the approval dialog. */
export const HOST_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>MCP Apps test host</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; width: 640px; }
  iframe { width: 100%; height: 260px; border-radius: 6px; }
  #approval { border: 2px solid #c77700; border-radius: 6px; padding: 8px 12px; margin: 8px 0; background: #fff8e6; }
</style>
</head>
<body>
<h1>MCP Apps test host</h1>
<p>Server: <span id="host-status">connecting...</span></p>
<button id="show-board" type="button" disabled>Show the notes board</button>
<div id="approval" role="dialog" aria-label="Approval" hidden>
  <p id="approval-question"></p>
  <button id="approve" type="button">Approve</button>
  <button id="decline" type="button">Decline</button>
</div>
<div id="views"></div>
<script type="module" src="/host.js"></script>
</body>
</html>
`;
