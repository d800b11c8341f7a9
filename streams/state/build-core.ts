/**
 * buildCore: one server's state, made from its resolved options: the bounds
 * (admission, parking, approval tickets, approval tasks, all counted by one
 * ApprovalCounts), the tables (capabilities, client requests, cancellations,
 * listens), the one callback-timeout queue, the extensions (rxmcp's tasks
 * extension first when the server speaks tasks) and the tasks service. The
 * composition root (mcp-server.ts) owns what it returns; nothing here runs
 * anything.
 */
import type { Subject } from 'rxjs';
import { DeadlineQueue } from '../../lib/deadline-queue.js';
import { ConfigError } from '../../lib/errors.js';
import type { ServerEvent } from '../../lib/events.js';
import type { ResolvedOptions } from '../../lib/options.js';
import { TASKS_EXTENSION_ID } from '../../lib/tasks/task-record.js';
import { ExtensionTable } from '../extensions/extension-table.js';
import { LEGACY_METHODS, MODERN_METHODS } from '../methods/tables.js';
import { TaskService } from '../tasks/task-service.js';
import { tasksExtension } from '../tasks/tasks-extension.js';
import { createTracing } from '../tracing.js';
import { Admission } from './admission.js';
import { approvalCounts, approvalDeps } from './approval-setup.js';
import { Cancellations } from './cancellation.js';
import { CapabilityTable } from './capability-table.js';
import { ClientRequests } from './client-requests.js';
import type { Connections } from './connections.js';
import { ListenHub } from './listen-hub.js';
import { ParkingLot } from './parking.js';
import type { ServerCore } from './server-core.js';

export function buildCore(options: ResolvedOptions, connections: Connections, events: Subject<ServerEvent>): ServerCore {
  // Legacy parked calls, modern approval tickets and approval tasks share one set of caps and one fairness rule.
  const counts = approvalCounts(options);
  const tasks = options.tasks === null ? null : new TaskService(options.tasks, options.scheduler, options.logger, counts);
  if (tasks !== null && options.extensions.some((e) => e.id === TASKS_EXTENSION_ID)) {
    throw new ConfigError('extensions', `extension ${TASKS_EXTENSION_ID} is rxmcp's own: turn it on with the tasks option`);
  }
  const served = tasks === null ? options.extensions : [tasksExtension(tasks), ...options.extensions];
  const extensions = new ExtensionTable(served, (method) => LEGACY_METHODS.has(method) || MODERN_METHODS.has(method));
  const core: ServerCore = {
    options,
    admission: new Admission(options.maxInFlight, options.maxInFlightPerConnection, options.maxInFlightPerPeer, options.clusterPermits),
    parking: new ParkingLot({ timeoutMs: options.elicitationTimeoutMs, scheduler: options.scheduler, counts }),
    approvals: approvalDeps(options, counts, (event) => events.next(event)),
    capabilities: new CapabilityTable(
      options.maxClientCapabilities,
      (connId) => connections.isLive(connId),
      (event) => events.next(event),
      extensions.ids,
    ),
    clientRequests: new ClientRequests(options.scheduler),
    deadlines: new DeadlineQueue(options.scheduler, options.callbackTimeoutMs),
    connections,
    events,
    cancellations: new Cancellations(),
    toolsWarnedUndefined: new WeakSet(),
    tracing: createTracing(),
    listens: new ListenHub(
      options.eventBus,
      {
        maxListens: options.maxListens,
        maxListensPerConnection: options.maxListensPerConnection,
        maxUrisPerConnection: options.maxSubscriptionsPerConnection,
        maxUrisTotal: options.maxSubscriptionsTotal,
      },
      options.logger,
      () => connections.subscriptions,
    ),
    extensions,
    tasks,
  };
  tasks?.attach(core);
  return core;
}
