/**
 * What the authenticator tests present and read back: a request carrying a
 * bearer token, and the principal an outcome must be (any failure fails the
 * test, naming what came instead).
 */
import { isAuthFailure, type AuthOutcome, type Principal } from '../../lib/index.js';

export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

export function principalOf(outcome: AuthOutcome): Principal {
  if (isAuthFailure(outcome)) throw new Error(`expected a principal, got ${JSON.stringify(outcome)}`);
  return outcome;
}
