/**
 * `rxmcp`: a Model Context Protocol server library whose core is an RxJS
 * pipeline. The server (`createServer`, `McpServer`), the `Registry` and its
 * definitions, authorizers, content helpers, errors, authentication,
 * middleware, and the ports a cluster shares with their in-memory defaults.
 * The guides are in docs/ of the repository.
 *
 * @module rxmcp
 */
export { createServer, McpServer } from '../streams/mcp-server.js';
export type { ServerStats } from '../streams/server-stats.js';
export type { ConnectionInfo } from '../streams/state/connections.js';
export type { ParkedApproval } from '../streams/state/parking.js';
export { RequestRef } from '../streams/entry-options.js';
export type { ConnectOptions, HandleMessageOptions, PendingRequest, RequestOptions } from '../streams/entry-options.js';
export { Registry } from './registry.js';
export type { BindToolsOptions, RegisterOptions, RegisterToolOptions, RegistryChange, RegistryOptions } from './registry.js';
export type { AnyResourceDef } from './resource-table.js';
export { allowAll, allowlist, denyAll } from './authorizers.js';
export type { AllowlistOptions, AskPrompt, Authorizer, Decision } from './authorizers.js';
export { ConfigError, CallerGoneError, ToolError, ClientCapabilityError, ClientRequestError, InputNeededError, ResourceNotFoundError, ExtensionError } from './errors.js';
export type { InputNeed } from './errors.js';
/** JSON-RPC error codes and the error replies built from them: `errors.parseError(detail)` is the one a transport sends for a frame that is not JSON. */
export * as errors from './errors.js';
export type { ServerOptions, AuthorizerSource } from './options.js';
export type { ExposeErrors } from './crash-exposure.js';
export type { AskWithoutElicitation } from './mrtr/mrtr-options.js';
export type {
  ApprovalLedger,
  ApprovalLedgerFactory,
  ApprovalLedgerSetup,
  ApprovalTicket,
  TicketAdmission,
  TicketMiss,
  TicketReissue,
  TicketRequest,
  TicketTake,
} from './ports/approval-ledger.js';
export type { ApprovalCaps } from './approval-counts.js';
export { CACHEABLE_METHODS } from './cache-hints.js';
export type { CacheHint, CacheHintsOption, CacheScope, CacheableMethod } from './cache-hints.js';
export type { AuthorizationContext, CallContext, ConnId, TransportKind, ElicitParams, ElicitResult, InputRequest, InputResponse, InputResponses } from './context.js';
export { DEFAULT_CONN_ID } from './context.js';
export type { ApprovalEvent, CallbackFailedEvent, CallCompletedEvent, CallOutcome, ServerEvent } from './events.js';
export type { ToolDef, TypedToolDef, ToolAnnotations, ToolHandler, Icon } from './tool-def.js';
export { defineTool, isSensitiveTool } from './tool-def.js';
export type { ToolArgs, ToolReturn, ToolSchema, ToolStructured, TypedToolOutcome, StructuredToolResult, FailedToolResult } from './tool-types.js';
export type { InferSchemaInput, InferSchemaOutput, StandardIssue, StandardJsonSchemaConverter, StandardResult, StandardSchemaProps, StandardSchemaV1 } from './standard-schema.js';
export type { JsonSchemaConverter } from './tool-schemas.js';
export { isSpecToolName } from './tool-names.js';
export type { ObservableResourceDef, ResourceDef, ResourceTemplateDef, ResourceContents, Completer, CompletionContext } from './resource-def.js';
export type { PromptArgs, PromptDef, PromptArgument, PromptMessage, TypedPromptDef } from './prompt-def.js';
export type { CallToolResult } from './tool-result.js';
export type { Logger } from './logger.js';
export { LOG_LEVELS } from './log-levels.js';
export type { LogLevel } from './log-levels.js';
export { SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION } from './protocol/versions.js';
export { MODERN_PROTOCOL_VERSIONS, MODERN_META, hasModernClaim } from './protocol/modern.js';
export type { Era, EraPolicy, ModernRequest, ModernClientInfo, ModernProtocolVersion } from './protocol/modern.js';
export type { JsonRpcId, JsonRpcResponse, JsonRpcRequest, JsonRpcNotification, OutboundMessage } from './protocol/jsonrpc.js';
export { PACKAGE_VERSION } from './version.js';
export { text, image, audio, embeddedResource, resourceLink } from './content.js';
export type { Annotations, ResourceLinkFields } from './content.js';
export { progressUpdate, ProgressUpdate } from './progress.js';
export { relatedRequestOf } from './protocol/related.js';
export { checkRequestedSchema } from './elicitation-schema.js';
export { encodeMessage } from './protocol/encode.js';
export { sleep } from './sleep.js';
export type { SleepOptions } from './sleep.js';
export { untilAborted } from './until-aborted.js';
export { rateLimit } from './middleware/rate-limit.js';
export type { RateLimitOptions } from './middleware/rate-limit.js';
export { maxResponseBytes } from './middleware/max-response-bytes.js';
export { cacheReadOnly } from './middleware/cache-read-only.js';
export type { CacheReadOnlyOptions } from './middleware/cache-read-only.js';
export type { AdmittedCall, AdmittedMethod, CallReply, CallStage, Middleware, MiddlewareSetup } from './middleware/types.js';
export { makePrincipal, isPrincipal, isExpired, principalKey } from './auth/principal.js';
export type { Principal, PrincipalInit, PrincipalKind } from './auth/principal.js';
export { bearerToken, bearerAuthenticator, isAuthFailure } from './auth/authenticator.js';
export type { Authenticator, AuthRequest, AuthFailure, AuthErrorCode, AuthOutcome } from './auth/authenticator.js';
export { renderChallenge, challengeHeader } from './auth/challenge.js';
export type { Challenge, ChallengeOptions } from './auth/challenge.js';
export { jwtBearer } from './auth/jwt-bearer.js';
export type { JwtBearerOptions } from './auth/jwt-bearer.js';
export { introspection } from './auth/introspection.js';
export type { IntrospectionOptions } from './auth/introspection.js';
export { customVerifier, staticTokens } from './auth/custom.js';
export type { CustomVerify, CustomVerdict, StaticTokensOptions } from './auth/custom.js';
export { protectedResourceMetadata, wellKnownPaths } from './auth/resource-metadata.js';
export type { ProtectedResourceMetadata, ProtectedResourceMetadataOptions, WellKnownPaths } from './auth/resource-metadata.js';
export { hasScopes, missingScopes, requireScopes, byPrincipal, allOf } from './auth/scopes.js';
export { AuthenticatedMessage } from './auth/authenticated.js';
export { declaredScopes, targetScopes } from './auth/target-scopes.js';
export type { ScopeHierarchy, PrincipalDecider } from './auth/scopes.js';
export { InMemoryEventBus } from './ports/event-bus.js';
export type { BusEvent, BusListener, InMemoryEventBusOptions, ListChangedEventType, ServerEventBus } from './ports/event-bus.js';
export type { ListenOptions } from './listen-options.js';
export { SUBSCRIPTION_ID_META } from './protocol/subscription.js';
export { permitPool, permitBusy, PERMIT_GRANTED } from './ports/permits.js';
export type { Acquired, PermitAnswer, PermitPool, PermitScope } from './ports/permits.js';
export { defineExtension } from './extension.js';
export type { Extension, ExtensionCallContext, ExtensionMethod, ResultMemberContext } from './extension.js';
export { SkillCatalog, SkillLoadError, SKILLS_EXTENSION_ID, DEFAULT_SKILL_LIMITS, DIRECTORY_MIME_TYPE } from './skills/skill-catalog.js';
export type { DirectoryChild, SkillDefinition, SkillEntry, SkillFile, SkillLimits, SkillResourceEntry } from './skills/skill-catalog.js';
export { skillsExtension } from './skills/skills-extension.js';
export type { SkillsOptions } from './skills/skills-extension.js';
export { loadSkillsFolder } from './skills/skills-folder.js';
export { appsExtension, APPS_EXTENSION_ID } from './apps/apps-extension.js';
export type { AppsOptions } from './apps/apps-extension.js';
export { appToolDef, defineAppTool, linkedUiResource } from './apps/app-tool.js';
export type { AppToolDef, AppToolUi, AppToolVisibility, TypedAppToolDef } from './apps/app-tool.js';
export { isUiUri, uiResourceDef, UI_MIME_TYPE } from './apps/ui-resource.js';
export type { UiResourceDef } from './apps/ui-resource.js';
export type { UiResourceCsp, UiResourceMeta, UiResourcePermissions } from './apps/ui-resource-meta.js';
export type { SkillsFolderOptions } from './skills/skills-folder.js';
export { FrontmatterError, parseFrontmatter } from './skills/frontmatter.js';
export { TASKS_EXTENSION_ID, isTerminal } from './tasks/task-record.js';
export type { TaskError, TaskRecord, TaskStatus, TaskSupport } from './tasks/task-record.js';
export type { TaskOptions } from './tasks/task-options.js';
export { MemoryTaskStore } from './tasks/memory-task-store.js';
export type { NewTask, TaskAnswer, TaskCreation, TaskEnding, TaskPage, TaskSignal, TaskStore, TaskStoreFactory, TaskStoreSetup } from './ports/task-store.js';
