/**
 * Closing a socket the server gave up on: a close frame with a code and a
 * reason, then, if the peer has not finished the close handshake within the
 * grace period (a paused slow consumer never reads the frame), termination.
 * The grace runs on the server's scheduler like every other timer.
 */
import { Subscription, timer, type SchedulerLike } from 'rxjs';
// A type only: the readyState constants are read off the socket, so this module does not load ws.
import type { WebSocket } from 'ws';

/** RFC 6455 close codes this transport sends. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** A close reason is at most 123 bytes on the wire. */
function clip(reason: string): string {
  let clipped = reason;
  while (Buffer.byteLength(clipped) > 123) clipped = clipped.slice(0, -1);
  return clipped;
}

export function closeWithGrace(
  socket: WebSocket,
  code: number,
  reason: string,
  graceMs: number,
  scheduler: SchedulerLike,
): Subscription {
  if (socket.readyState === socket.CLOSED) return Subscription.EMPTY;
  if (socket.readyState === socket.CONNECTING || socket.readyState === socket.OPEN) socket.close(code, clip(reason));
  const grace = timer(graceMs, scheduler).subscribe(() => socket.terminate());
  const onClose = () => grace.unsubscribe();
  socket.once('close', onClose);
  grace.add(() => socket.off('close', onClose));
  return grace;
}
