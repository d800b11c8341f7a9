/**
 * The conformance fixture: an MCP server with exactly the tools, resources
 * and prompts the official conformance suite's server scenarios call
 * (`@modelcontextprotocol/conformance`, `--suite all`), each answering what
 * its scenario documents (0.1.16, and 0.2.0-alpha.12 with its 2026-07-28
 * scenarios: the input-required, stateless-diagnostic and schema tools), and the Skills
 * extension with one skill (skills.ts) for its sep-2640-skills-* scenarios, and the
 * tasks extension with the tools of its tasks-* scenarios (task-tools.ts). Authorization is chosen, not defaulted: everything
 * is allowed, explicitly, so the network boot guards let it serve.
 */
import { asyncScheduler } from 'rxjs';
import { allowAll, createServer, Registry, skillsExtension, type McpServer, type ServerOptions } from '../../lib/index.js';
import { everythingSkills } from './skills.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { registerInputRequiredTools } from './input-required-tools.js';
import { registerSchemaTools } from './schema-tools.js';
import { registerStatelessTools } from './stateless-tools.js';
import { registerTools } from './tools.js';
import { registerTaskTools } from './task-tools.js';

export interface EverythingServerOptions extends Omit<ServerOptions, 'registry' | 'authorizer' | 'readAuthorizer' | 'authorizerSource'> {
  /** The pause between a multi-step tool's steps; default 50 ms, as the scenarios describe. */
  stepDelayMs?: number;
}

export const DEFAULT_STEP_DELAY_MS = 50;

export function createEverythingServer(options: EverythingServerOptions = {}): McpServer {
  const { stepDelayMs = DEFAULT_STEP_DELAY_MS, ...serverOptions } = options;
  if (!Number.isSafeInteger(stepDelayMs) || stepDelayMs < 0) {
    throw new RangeError(`stepDelayMs must be a non-negative integer, got ${String(stepDelayMs)}`);
  }
  const registry = new Registry();
  registerTools(registry, { scheduler: serverOptions.scheduler ?? asyncScheduler, stepDelayMs });
  registerResources(registry);
  registerPrompts(registry);
  registerSchemaTools(registry);
  registerInputRequiredTools(registry);
  registerStatelessTools(registry);
  registerTaskTools(registry);
  return createServer({
    name: 'rxmcp-everything',
    ...serverOptions,
    registry,
    authorizer: allowAll(),
    authorizerSource: 'configured',
    readAuthorizer: allowAll(),
    extensions: [skillsExtension(everythingSkills()), ...(serverOptions.extensions ?? [])],
  });
}
