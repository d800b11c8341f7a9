/**
 * A handler's own ctx.elicit / ctx.sample / ctx.listRoots / ctx.askInputs on
 * a modern tools/call, resources/read or prompts/get, served by REPLAY: the
 * handler runs from the top on every round. Its n-th single input call (key
 * `rxmcp.<n>`, by call order) and every key of a named batch (ctx.askInputs,
 * keys chosen by the handler) are answered from this round's `inputResponses`
 * or from the answers collected in earlier rounds, carried in a sealed
 * `requestState` (kind `rxmcp.state`, bound to method, target, arguments
 * digest and owner, expiring after `approvalTtlMs` on the server's
 * scheduler). The first call with anything unanswered ends the run: the
 * request is answered `input_required` with that call's unanswered questions
 * (one, or all still missing of the batch, in one round) and the state so
 * far, whatever the handler did after it.
 *
 * Each answer is bound to its question (a digest of method and params): a
 * handler that asks something else at the same place on a later round is
 * asked again rather than handed an answer given to another question, and a
 * fresh answer is taken only for the question the last round asked. Answers
 * failing a shape check are asked again too; extra keys are ignored.
 *
 * The prefix before an input call re-runs each round, so it must be
 * idempotent (a side effect belongs after the last input call, or behind an
 * authorizer's approval). A state failing its checks is the fixed -32602; an
 * expired one starts the questions over (nothing ran on its strength).
 */
import { InputNeededError, internalError, invalidRequestState, type InputNeed } from '../../lib/errors.js';
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import { argumentsDigest, canonicalJson, shortDigest } from '../../lib/canonical-json.js';
import { openHandlerState, sealHandlerState, type HandlerStateBinding } from '../../lib/mrtr/handler-state.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';
import { requestOwner } from './request-owner.js';

/** The methods that may answer `input_required` (every other one keeps -32021). */
const REPLAY_METHODS = new Set(['tools/call', 'resources/read', 'prompts/get']);

const KEY_PREFIX = 'rxmcp.';

/** What the sealed state carries between rounds. */
interface Collected {
  /** Key → the question's digest and its answer. */
  readonly answers: Record<string, { readonly q: string; readonly a: Record<string, unknown> }>;
  /** Key → question digest of everything asked last round. */
  readonly asked?: Readonly<Record<string, string>>;
}

/** Thrown into the handler at the first unanswered input call; the run's outcome is then input_required. */
export class InputRequiredSignal extends InputNeededError {
  override name = 'InputNeededError';
}

/** This run's unanswered questions: the first input call that had any ends the round with all of them. */
interface Asked {
  readonly requests: Record<string, InputRequest>;
  readonly digests: Record<string, string>;
}

class Replay {
  private calls = 0;
  private collected: Collected = { answers: {} };
  private fresh: Record<string, unknown> = {};
  private opened = false;
  /** Set once the state failed its checks: the request is the fixed -32602. */
  invalid = false;
  /** The first unanswered input call of this run (one question, or a handler's named batch). */
  asked: Asked | undefined;

  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
  ) {}

  /** The answer to one ctx.elicit / sample / listRoots call (key `rxmcp.<n>` by call order), or a throw ending the round. */
  answer(need: InputNeed): Record<string, unknown> {
    if (!this.open()) throw new InputRequiredSignal('the requestState was refused', need);
    this.calls += 1;
    const key = `${KEY_PREFIX}${this.calls}`;
    return this.answerAll({ [key]: need })[key]!;
  }

  /**
   * The answers to a named batch (ctx.askInputs), or a throw ending the
   * round with every key of the batch still unanswered. Answers given for
   * part of a batch are kept in the state, so only the rest is asked again.
   */
  answerAll(needs: Readonly<Record<string, InputNeed>>): Record<string, Record<string, unknown>> {
    const entries = Object.entries(needs);
    if (!this.open()) throw new InputRequiredSignal('the requestState was refused', entries[0]![1]);
    const answers: Record<string, Record<string, unknown>> = {};
    const missing: Asked = { requests: {}, digests: {} };
    let first: InputNeed | undefined;
    for (const [key, need] of entries) {
      const q = questionDigest(need);
      const kept = this.collected.answers[key];
      if (kept !== undefined && kept.q === q) {
        answers[key] = kept.a;
        continue;
      }
      const given = this.fresh[key];
      if (this.collected.asked?.[key] === q && this.asked === undefined && wellFormedAnswer(need.method, given)) {
        this.collected = { ...this.collected, answers: { ...this.collected.answers, [key]: { q, a: given } } };
        answers[key] = given;
        continue;
      }
      first ??= need;
      missing.requests[key] = { method: need.method, params: need.params };
      missing.digests[key] = q;
    }
    if (first === undefined) return answers;
    this.asked ??= missing;
    const keys = Object.keys(missing.requests).join(', ');
    throw new InputRequiredSignal(`${first.method} is asked of the client (input_required, key${entries.length > 1 ? 's' : ''} ${keys})`, first);
  }

  /** The round's response: the fixed -32602, or input_required with the questions and the state so far. */
  reply(): JsonRpcResponse | undefined {
    if (this.invalid) return invalidRequestState(this.scope.id);
    const asked = this.asked;
    if (asked === undefined) return undefined;
    const payload: Collected = { answers: this.collected.answers, asked: asked.digests };
    let requestState: string | null;
    try {
      requestState = sealHandlerState(this.core.approvals.codec, this.binding(), payload, this.core.approvals.scheduler.now(), this.core.options.approvalTtlMs);
    } catch {
      // Past maxRequestStateBytes: the answers collected so far cannot be carried.
      return internalError(this.scope.id, 'the input collected so far does not fit in a requestState (maxRequestStateBytes)');
    }
    if (requestState === null) return internalError(this.scope.id, 'the request cannot be bound to a requestState (arguments too large or not plain JSON)');
    return resultResponse(this.scope.id, { resultType: 'input_required', inputRequests: asked.requests, requestState });
  }

  /** Opens this round's state (once); false when it is refused. */
  open(): boolean {
    if (this.opened) return !this.invalid;
    this.opened = true;
    const params = this.scope.params;
    this.fresh = isPlainObject(params?.inputResponses) ? params.inputResponses : {};
    const token = params?.requestState;
    if (token === undefined) return true;
    const binding = this.binding();
    const now = this.core.approvals.scheduler.now();
    const opened = openHandlerState(this.core.approvals.codec, binding, token, now);
    if (opened.ok) {
      this.collected = readCollected(opened.payload);
      return true;
    }
    // This request's own approval ticket, on a retry the authorizer now allows: nothing for the handler.
    if (opened.reason === 'wrong_kind' && this.isOwnApprovalTicket(token, binding, now)) return true;
    const method = this.scope.method;
    this.core.approvals.report?.({ type: 'request_state_rejected', method, name: targetOf(this.scope), reason: opened.reason });
    // An authentic but expired state starts the questions over; anything else is refused.
    if (opened.reason !== 'expired') this.invalid = true;
    return !this.invalid;
  }

  private isOwnApprovalTicket(token: unknown, binding: HandlerStateBinding, now: number): boolean {
    const digest = argumentsDigest(binding.arguments);
    const opened = this.core.approvals.codec.open(token, { kind: 'rxmcp.approve', method: binding.method, target: binding.target, argumentsDigest: digest, owner: binding.owner }, now);
    return opened.ok || opened.reason === 'expired';
  }

  private binding(): HandlerStateBinding {
    return { method: this.scope.method, target: targetOf(this.scope), arguments: this.scope.params?.arguments ?? {}, owner: requestOwner(this.scope) };
  }
}

function targetOf(scope: RequestScope): string {
  const target = scope.method === 'resources/read' ? scope.params?.uri : scope.params?.name;
  return typeof target === 'string' ? target : '';
}

function questionDigest(need: InputNeed): string {
  return shortDigest(canonicalJson({ method: need.method, params: need.params }) ?? need.method);
}

function readCollected(payload: unknown): Collected {
  if (!isPlainObject(payload) || !isPlainObject(payload.answers)) return { answers: {} };
  // Sealed by this server, so the shape is ours; only the types are re-checked.
  const answers: Collected['answers'] = {};
  for (const [key, entry] of Object.entries(payload.answers)) {
    if (isPlainObject(entry) && typeof entry.q === 'string' && isPlainObject(entry.a)) answers[key] = { q: entry.q, a: entry.a };
  }
  if (!isPlainObject(payload.asked)) return { answers };
  const asked: Record<string, string> = {};
  for (const [key, q] of Object.entries(payload.asked)) if (typeof q === 'string') asked[key] = q;
  return { answers, asked };
}

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel']);

/** The shape each kind of answer must have to be handed to the handler. */
export function wellFormedAnswer(method: InputNeed['method'], value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  if (method === 'elicitation/create') {
    return typeof value.action === 'string' && ELICIT_ACTIONS.has(value.action) && (value.content === undefined || isPlainObject(value.content));
  }
  if (method === 'roots/list') return Array.isArray(value.roots) && value.roots.every((root) => isPlainObject(root) && typeof root.uri === 'string');
  return typeof value.role === 'string' && value.content !== undefined;
}

/** One replay per request run; the scope object is the run's identity. */
const replays = new WeakMap<RequestScope, Replay>();

/** Runs that may not replay: a tool run on an approval (its retry would need a second approval). */
const once = new WeakSet<RequestScope>();

/** Marks an approved run: its handler's input calls are not replayed (see input-needed.ts). */
export function withoutReplay(scope: RequestScope): RequestScope {
  once.add(scope);
  return scope;
}

/** Why a declared input call cannot be replayed on this request (canReplay false). */
export function whyNoReplay(scope: RequestScope): string {
  return once.has(scope)
    ? 'cannot be asked during an approved tool run (resuming it would need a second approval)'
    : `cannot be asked during ${scope.method} (only tools/call, resources/read and prompts/get can answer input_required)`;
}

/** Whether this modern request can answer input_required (its handlers' input calls replay). */
export function canReplay(scope: RequestScope): boolean {
  return scope.era === 'modern' && REPLAY_METHODS.has(scope.method) && !once.has(scope);
}

function replayOf(core: ServerCore, scope: RequestScope): Replay {
  let replay = replays.get(scope);
  if (replay === undefined) {
    replay = new Replay(core, scope);
    replays.set(scope, replay);
  }
  return replay;
}

/**
 * Checked before the handler runs: false when the request carries a
 * requestState that is not this request's (the round then answers the fixed
 * -32602 through replayReply, and the handler never runs).
 */
export function replayReady(core: ServerCore, scope: RequestScope): boolean {
  if (!canReplay(scope) || scope.params?.requestState === undefined) return true;
  return replayOf(core, scope).open();
}

/** The answer to a handler's declared input call on a replaying request (or the throw ending the round). */
export function replayAnswer(core: ServerCore, scope: RequestScope, need: InputNeed): Record<string, unknown> {
  return replayOf(core, scope).answer(need);
}

/** The answers to a handler's named batch of declared input calls (ctx.askInputs), or the throw ending the round. */
export function replayAnswers(core: ServerCore, scope: RequestScope, needs: Readonly<Record<string, InputNeed>>): Record<string, Record<string, unknown>> {
  return replayOf(core, scope).answerAll(needs);
}

/** The response a replaying run's round ends with, or undefined when its handler asked nothing unanswered. */
export function replayReply(scope: RequestScope): JsonRpcResponse | undefined {
  return replays.get(scope)?.reply();
}
