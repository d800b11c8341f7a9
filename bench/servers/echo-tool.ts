/** The benchmarks' `echo` tool, the same in every rxmcp server and micro benchmark so their numbers compare. */
import { PACKAGE_VERSION, ToolError, type Registry } from 'rxmcp';

const ECHO_INPUT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

function textOf(args: Record<string, unknown>): string {
  if (typeof args.text !== 'string') throw new ToolError('text must be a string');
  return args.text;
}

export function registerEcho(registry: Registry): Registry {
  return registry.registerTool({ name: 'echo', description: 'Returns the text it is given.', inputSchema: ECHO_INPUT, handler: (args) => textOf(args) });
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
    inputSchema: ECHO_INPUT,
    handler: (args) => {
      return {
        resultType: 'complete',
        content: [{ type: 'text', text: textOf(args) }],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'rxmcp-bench', version: PACKAGE_VERSION } },
      };
    },
  });
}
