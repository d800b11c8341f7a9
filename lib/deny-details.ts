/**
 * The `detail` of every deny the server decides itself (a tool authorizer's
 * own `{ deny: reason }` is passed through as is). One place, so a test, the
 * docs and the code cannot drift apart, and each says what happened in
 * words a person reading the deny understands.
 *
 * The snake_case ones are the contract's machine-readable reasons; the
 * approval ones describe how the question to the user ended.
 */
export const DENY_DETAIL = {
  /** tools/call of a sensitive tool on a server without a tool authorizer. */
  sensitiveToolUnguarded: 'sensitive_tool_unguarded',
  /** The authorizer threw, or its Promise/Observable failed. */
  authorizerFailed: 'authorizer_failed',
  /** The authorizer answered something other than allow / {ask} / {deny}. */
  authorizerContractViolation: 'authorizer_contract_violation',
  /** An ask on a read surface, where nobody can be asked. */
  interactiveApprovalUnsupported: 'interactive_approval_unsupported',

  /** An ask for a client that did not advertise elicitation at initialize (the question goes in `prompt`). */
  cannotAskNoElicitation: 'client cannot be asked (no elicitation capability)',
  /** An ask for a connection with no live subscriber to send the question to. */
  cannotAskNotConnected: 'client cannot be asked (no live connection)',
  /** accept without `approve: true`. */
  notApproved: 'not approved',
  declined: 'declined',
  cancelled: 'cancelled',
  /** An answer with no action the spec defines. */
  noAction: 'not approved (the answer named no action)',
  /** The client answered elicitation/create with an error. */
  elicitationFailed: 'elicitation failed (the client answered with an error)',
  /** No answer within elicitationTimeoutMs. */
  timedOut: 'timed out',
  /** A tools/call whose estimated heap size passes maxParkedCallBytes is not held for approval (the bound follows). */
  tooLargeToPark: 'request too large to hold for approval',
  /** Past maxParkedElicitations for the connection. */
  pendingOnConnection: 'too many elicitations pending',
  /** Past maxParkedElicitationsTotal: refused, or evicted by a connection holding fewer. */
  pendingOnServer: 'too many elicitations pending on this server',
  /** A cluster approval ledger (Redis) could not be reached or answered nonsense: fail closed, the tool does not run. */
  ledgerUnavailable: 'approval store unavailable (try again later)',
  /** `server.close()` ended the wait for an answer, or came before the ask: a closed server holds no approvals. */
  serverClosing: 'the server is shutting down',
} as const;
