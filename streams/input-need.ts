/**
 * inputNeedOf: one input a handler asks (ctx.elicit, ctx.sample,
 * ctx.listRoots, an entry of ctx.askInputs) as the client will be shown it
 * without a live request (an MRTR round's `inputRequests`, a task's), the
 * capability it needs, and whether the client declared it. A form's schema
 * is checked (a TypeError naming the problem) and the form is marked `mode:
 * "form"`; a URL elicitation loses its `elicitationId` on 2026-07-28, which
 * has none (the answer itself says the URL step is done).
 */
import type { InputRequest } from '../lib/context.js';
import { checkRequestedSchema } from '../lib/elicitation-schema.js';
import type { InputNeed } from '../lib/errors.js';
import { isPlainObject } from '../lib/protocol/jsonrpc.js';
import type { Era } from '../lib/protocol/modern.js';
import { supportsFormElicitation } from './state/capability-table.js';

/** What the client declared of one capability (a plain object), or undefined. */
export type DeclaredCapability = (name: 'elicitation' | 'sampling' | 'roots') => Record<string, unknown> | undefined;

export function inputNeedOf(request: InputRequest, declared: DeclaredCapability, era: Era): InputNeed {
  switch (request.method) {
    case 'elicitation/create': {
      const params = request.params;
      const elicitation = declared('elicitation');
      if (params.mode === 'url') {
        const urlParams: Record<string, unknown> = { ...params };
        if (era === 'modern') delete urlParams.elicitationId;
        return { method: 'elicitation/create', params: urlParams, requiredCapabilities: { elicitation: { url: {} } }, declared: isPlainObject(elicitation?.url) };
      }
      const problem = checkRequestedSchema(params.requestedSchema);
      if (problem !== null) throw new TypeError(`ctx.elicit: ${problem}`);
      return { method: 'elicitation/create', params: { mode: 'form', ...params }, requiredCapabilities: { elicitation: {} }, declared: supportsFormElicitation(elicitation) };
    }
    case 'sampling/createMessage':
      return { method: 'sampling/createMessage', params: request.params, requiredCapabilities: { sampling: {} }, declared: declared('sampling') !== undefined };
    case 'roots/list':
      return { method: 'roots/list', params: {}, requiredCapabilities: { roots: {} }, declared: declared('roots') !== undefined };
  }
}
