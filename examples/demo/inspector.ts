/**
 * The MCP Inspector the examples print a command for, pinned. Unpinned,
 * `npx @modelcontextprotocol/inspector` quietly gets a different release
 * per machine, and every release after 0.15.0 declares Node >= 22.7.5
 * (2.x: >= 22.19), while rxmcp promises Node 20. 0.15.0 is the last one
 * without that bound; its CLI (`--cli URL --transport http --method ...`)
 * was checked against the demo on Node 20. On Node 22.19 or later, drop the
 * version for the newest.
 */
export const INSPECTOR = '@modelcontextprotocol/inspector@0.15.0';
