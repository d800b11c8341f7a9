/**
 * rxmcp/testing: test YOUR server on a virtual clock, `async` handlers
 * included, with in-memory clients of both eras. No test framework is
 * imported here: it runs under vitest, jest and node:test alike.
 *
 * @module rxmcp/testing
 */
export { createTestServer } from './create-test-server.js';
export type { TestServer, TestServerOptions } from './create-test-server.js';
export { TestClock } from './test-clock.js';
export type { TestClockOptions } from './test-clock.js';
export type { SettleOptions } from './settle.js';
export { TestClient } from './test-client.js';
export type { TestClientOptions } from './test-client.js';
export type { Message } from './client-wire.js';
export { PendingInput } from './pending-input.js';
export type { InputKind, InputMethod, InputOutcome } from './pending-input.js';
export type { ToolCall, ProgressNote, LogLine } from './tool-call.js';
export { textOf } from './tool-result.js';
export type { ToolResult, ContentItem, TextContent, MediaContent, ResourceLinkContent, EmbeddedResourceContent } from './tool-result.js';
export { ListenStream } from './listen-stream.js';
export type { ListenFilter, ListenNotification } from './listen-stream.js';
export { RpcError, CallAbandonedError } from './client-errors.js';
export type { AbandonReason } from './client-errors.js';
export { expectDenied, denialOf } from './expect-denied.js';
export type { Denial } from './expect-denied.js';
export { createIdNormalizer, normalizeIds } from './normalize-ids.js';
export type { IdNormalizerOptions } from './normalize-ids.js';
