/** The benchmarks' `echo` tool, the same in every rxmcp server and micro benchmark so their numbers compare. */
import { ToolError, type Registry } from '../../lib/index.js';

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
