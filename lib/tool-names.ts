/**
 * The spec's rule for tool names: 1 to 128 characters of A-Z, a-z, 0-9, `_`,
 * `-` and `.`. A name outside it still registers (clients may cope, and
 * refusing would break servers that work today) but is warned about once
 * per name. Warnings made before a registry has a logger wait for one,
 * bounded, so a registry built before its server still reports.
 */
import type { Logger } from './logger.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Names remembered as already warned about, and warnings waiting for a logger, at most. */
const MAX_REMEMBERED = 1024;

/** Whether a tool name follows the spec's rule (1 to 128 of `A-Z a-z 0-9 _ - .`); others register with a warning. */
export function isSpecToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}

export class ToolNameWarnings {
  private readonly warned = new Set<string>();
  private readonly waiting: string[] = [];

  constructor(private logger: Logger | null) {}

  /** Takes the logger when there is none yet, and says what waited for it. */
  adopt(logger: Logger): void {
    if (this.logger !== null) return;
    this.logger = logger;
    for (const name of this.waiting.splice(0)) this.warn(name);
  }

  check(name: string): void {
    if (isSpecToolName(name) || this.warned.has(name)) return;
    // Derived tools come and go by the thousand in a long run: forget rather than grow.
    if (this.warned.size >= MAX_REMEMBERED) this.warned.clear();
    this.warned.add(name);
    if (this.logger !== null) this.warn(name);
    else if (this.waiting.length < MAX_REMEMBERED) this.waiting.push(name);
  }

  private warn(name: string): void {
    this.logger!.warn(
      { tool: name },
      `tool name ${JSON.stringify(name)} is outside the MCP rule (1-128 characters of A-Z a-z 0-9 _ - .); some clients will refuse or mangle it`,
    );
  }
}
