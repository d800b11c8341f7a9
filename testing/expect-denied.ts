/**
 * Reading the server's authorization deny from a tool result, in any test
 * framework: `expectDenied` throws node's AssertionError (vitest, jest and
 * node:test all show its actual and expected) when the result is not the
 * deny, or not with that detail. The deny is the seed's shape: an `isError`
 * result whose text is `{"error":"authorization_required","tool",
 * "decision","detail"[,"prompt"]}`, its details listed in lib/deny-details.ts
 * (`timed out`, `declined`, `not approved`, ...).
 */
import { AssertionError } from 'node:assert';

/** The server's authorization deny, read from a tool result (`denialOf`, `expectDenied`). */
export interface Denial {
  readonly error: 'authorization_required';
  readonly tool: string;
  /** `deny`: the authorizer refused; `ask`: the approval question ended without a yes. */
  readonly decision: 'deny' | 'ask';
  readonly detail: string;
  /** The question, when the client could not be asked it. */
  readonly prompt?: string;
}

interface ResultLike {
  readonly content?: readonly unknown[];
  readonly isError?: boolean;
}

function firstText(result: ResultLike): string | undefined {
  const item = result.content?.[0] as { type?: unknown; text?: unknown } | undefined;
  return item?.type === 'text' && typeof item.text === 'string' ? item.text : undefined;
}

/** The deny a result carries, or undefined when it is not one. */
export function denialOf(result: ResultLike): Denial | undefined {
  if (result.isError !== true) return undefined;
  const text = firstText(result);
  if (text === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const d = body as Partial<Denial> | null;
  if (d === null || typeof d !== 'object' || d.error !== 'authorization_required' || typeof d.tool !== 'string' || typeof d.detail !== 'string') return undefined;
  if (d.decision !== 'deny' && d.decision !== 'ask') return undefined;
  return d as Denial;
}

/** Asserts that `result` is the server's deny (with `detail`, when given: the exact string, or a RegExp) and returns it. */
export function expectDenied(result: ResultLike, detail?: string | RegExp): Denial {
  const denial = denialOf(result);
  if (denial === undefined) {
    const text = firstText(result);
    const what = result.isError === true ? `failed otherwise: ${JSON.stringify(text ?? result.content)}` : `was not denied: it answered ${JSON.stringify(text ?? result.content)}`;
    throw new AssertionError({ message: `expected the call to be denied${detail === undefined ? '' : ` (${String(detail)})`}, but it ${what}`, actual: result, expected: { isError: true, detail } });
  }
  const matches = detail === undefined || (typeof detail === 'string' ? denial.detail === detail : detail.test(denial.detail));
  if (!matches) {
    throw new AssertionError({
      message: `expected the ${denial.tool} call denied with detail ${String(detail instanceof RegExp ? detail : JSON.stringify(detail))}, but its detail is ${JSON.stringify(denial.detail)} (decision ${denial.decision})`,
      actual: denial.detail,
      expected: detail,
    });
  }
  return denial;
}
