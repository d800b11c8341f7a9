/**
 * maxResponseBytes: a reply whose JSON (the result, or the error) is larger
 * than `bytes` in UTF-8 is replaced by `response_too_large` (an isError
 * result `Error: response_too_large: <size> bytes, over the <limit>-byte
 * limit` for tools/call, -32603 with `data.error: "response_too_large"` for
 * the read methods), and a warning is logged naming the call, since the
 * reply the client lost is one the operator should hear about. The handler
 * has run: this bounds what leaves, not what is computed.
 *
 * Measuring serialises the reply once more; a reply that cannot be
 * serialised is left for the encoder, which answers it with an error.
 */
import { map } from 'rxjs';
import { positiveIntegerOption } from '../option-checks.js';
import type { CallReply, Middleware } from './types.js';

/** The reply's size on the wire (bar the envelope), or undefined when it cannot be serialised. */
export function replyBytes(reply: CallReply): number | undefined {
  let json: string;
  try {
    json = JSON.stringify(reply.error !== undefined ? reply.error : reply.result);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(json, 'utf8');
}

/** Default 1 MiB. */
export function maxResponseBytes(bytes: number = 1_048_576): Middleware {
  const limit = positiveIntegerOption('maxResponseBytes', bytes, 1_048_576);
  return ({ logger }) =>
    (call) =>
      map((reply) => {
        const size = replyBytes(reply);
        if (size === undefined || size <= limit) return reply;
        logger.warn(
          { connId: call.connId, method: call.method, name: call.name, uri: call.uri, bytes: size, limit },
          'a reply over maxResponseBytes was replaced by response_too_large',
        );
        return call.refuse('response_too_large', `${size} bytes, over the ${limit}-byte limit`);
      });
}
