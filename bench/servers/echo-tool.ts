/** The benchmarks' `echo` tool, the same in every rxmcp server and micro benchmark so their numbers compare. */
import { ToolError, type Registry } from '../../lib/index.js';
import { PACKAGE_VERSION } from '../../lib/version.js';

export function registerEcho(registry: Registry): Registry {
  return registry.registerTool({
    name: 'echo',
    description: 'Returns the text it is given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => {
      if (typeof text !== 'string') throw new ToolError('text must be a string');
      return text;
    },
  });
}

/**
 * `echo` answering a legacy call with a modern result's bytes: `resultType`
 * first and the serverInfo `_meta` a modern reply of the bench server
 * carries (name `rxmcp-bench`, the package version). With the sized
 * requests (bench/driver/modern-meta.ts), a legacy connection then reads
 * and writes exactly as many bytes per call as a modern one: the control
 * that separates what the modern path costs from what its messages' size
 * costs.
 */
export function registerModernSizedEcho(registry: Registry): Registry {
  return registry.registerTool({
    name: 'echo',
    description: 'Returns the text it is given, in a result as big as a modern one.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => {
      if (typeof text !== 'string') throw new ToolError('text must be a string');
      return {
        resultType: 'complete',
        content: [{ type: 'text', text }],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'rxmcp-bench', version: PACKAGE_VERSION } },
      };
    },
  });
}
