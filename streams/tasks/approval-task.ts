/**
 * An approval as a task: an authorizer's `{ ask }` on a 2026-07-28 request
 * that declared the tasks extension (and form elicitation) becomes a task in
 * `input_required` carrying the approval form (key `rxmcp.approve`, the form
 * an MRTR round or a legacy parked call would show), instead of an MRTR
 * round. It holds no request and no worker while it waits: a person may
 * answer through `tasks/update` from another device an hour later.
 *
 * The seed's guarantees carry over:
 * - caps: it holds a place in the server's ApprovalCounts, counted with
 *   legacy parked calls and MRTR tickets, under the same fair eviction (an
 *   evicted approval is the deny with the eviction's detail);
 * - exactly once: the store takes the approval key once, so of racing
 *   `tasks/update` approvals exactly one starts the tool, once;
 * - owner-bound: like every task (tasks-extension.ts);
 * - silence is not consent: unanswered after `approvalTtlMs` (or at the
 *   task's TTL, whichever is first) it is the `timed out` deny;
 * - all on the server's scheduler.
 * Approved, the tool runs under the same task (task-run.ts `adopt`).
 */
import type { Subscription } from 'rxjs';
import type { ApprovalHold } from '../../lib/approval-counts.js';
import { readElicitResult } from '../../lib/approval.js';
import { DENY_DETAIL } from '../../lib/deny-details.js';
import { toolDenied } from '../../lib/errors.js';
import { APPROVAL_INPUT_KEY, approvalInputRequest } from '../../lib/mrtr/approval-form.js';
import type { TaskSignal } from '../../lib/ports/task-store.js';
import type { TaskRecord } from '../../lib/tasks/task-record.js';
import type { ToolDef } from '../../lib/tool-def.js';
import type { RequestScope } from '../state/server-core.js';
import { TaskCreated } from './task-created.js';
import { TaskRun, type TaskRunHost } from './task-run.js';

/** One approval waiting as a task: its hold on the approval caps, its follow of the task, its timeout. */
class WaitingApproval {
  private hold: ApprovalHold | undefined;
  private following: Subscription | undefined;
  private timeout: Subscription | undefined;
  private done = false;

  constructor(
    private readonly host: TaskRunHost,
    private readonly scope: RequestScope,
    private readonly tool: ToolDef,
    private readonly args: Record<string, unknown>,
    private readonly task: TaskRecord,
  ) {}

  /** Holds its place (already admitted), asks the form on the task, and waits. */
  wait(hold: ApprovalHold, prompt: string): void {
    this.hold = hold;
    const { store, core } = this.host;
    const taskId = this.task.taskId;
    this.host.began(taskId, this.scope);
    this.following = store.follow(taskId).subscribe({
      next: (signal) => this.heard(signal),
      complete: () => this.end(),
      error: () => this.end(),
    });
    this.timeout = core.options.scheduler.schedule(() => this.deny(DENY_DETAIL.timedOut), Math.min(core.options.approvalTtlMs, this.task.ttlMs));
    store.ask(taskId, { [APPROVAL_INPUT_KEY]: approvalInputRequest(this.tool.name, prompt) }).subscribe({
      next: (asked) => {
        if (asked) this.host.changed(taskId);
        else this.end();
      },
      error: (error: unknown) => {
        core.options.logger.error({ err: error, taskId }, 'task store failed to store an approval');
        this.deny(DENY_DETAIL.ledgerUnavailable);
      },
    });
  }

  /** The approval caps evicted this approval for a fairer one. */
  evicted(detail: string): void {
    this.hold = undefined;
    this.deny(detail);
  }

  private heard(signal: TaskSignal): void {
    if (signal.kind === 'stop') {
      this.end();
      return;
    }
    if (!Object.hasOwn(signal.responses, APPROVAL_INPUT_KEY)) return;
    const verdict = readElicitResult(signal.responses[APPROVAL_INPUT_KEY]);
    if (!verdict.approved) {
      this.deny(verdict.detail);
      return;
    }
    this.end();
    new TaskRun(this.host, this.scope, this.tool, this.args).adopt(this.task);
  }

  /** The deny as the task's result, as the plain call would have answered it. */
  private deny(detail: string): void {
    if (this.done) return;
    this.end();
    const taskId = this.task.taskId;
    this.host.store.finish(taskId, { status: 'completed', result: toolDenied(this.tool.name, 'ask', detail) as unknown as Record<string, unknown> }).subscribe({
      complete: () => this.host.changed(taskId),
      error: (error: unknown) => this.host.core.options.logger.error({ err: error, taskId }, 'task store failed to store an approval deny'),
    });
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.host.ended(this.task.taskId, this.scope);
    this.timeout?.unsubscribe();
    this.following?.unsubscribe();
    this.hold?.release();
    this.hold = undefined;
  }
}

/**
 * The ask of `prompt` as a task: the deny at once when the approval caps
 * refuse it, else the task (its CreateTaskResult is the request's answer),
 * or the busy result when the store has no room.
 */
export function approvalAsTask(host: TaskRunHost, scope: RequestScope, tool: ToolDef, args: Record<string, unknown>, prompt: string): Promise<TaskCreated | ReturnType<typeof toolDenied>> {
  let waiting: WaitingApproval | undefined;
  const admission = host.counts.admit(scope.peer, scope.peer, (detail) => waiting?.evicted(detail));
  if (!admission.admitted) return Promise.resolve(toolDenied(tool.name, 'ask', admission.detail, prompt));
  return new Promise((resolve) => {
    host.store.create({ owner: scope.peer, method: 'tools/call', name: tool.name }).subscribe({
      next: (creation) => {
        if (!creation.created) {
          admission.hold.release();
          resolve(toolDenied(tool.name, 'ask', `the task could not be stored (${creation.reason})`, prompt));
          return;
        }
        waiting = new WaitingApproval(host, scope, tool, args, creation.task);
        waiting.wait(admission.hold, prompt);
        resolve(new TaskCreated(creation.task));
      },
      error: (error: unknown) => {
        admission.hold.release();
        host.core.options.logger.error({ err: error, tool: tool.name }, 'task store failed to create an approval task');
        resolve(toolDenied(tool.name, 'ask', DENY_DETAIL.ledgerUnavailable, prompt));
      },
    });
  });
}
