/**
 * Ping/pong liveness on the server's scheduler: every period the socket is
 * pinged, and a socket that has not answered the previous ping by then is
 * terminated (a half-open TCP peer otherwise holds its connection, and its
 * parked calls, forever).
 */
import { interval, type SchedulerLike, type Subscription } from 'rxjs';
// A type only: the readyState constants are read off the socket, so this module does not load ws.
import type { WebSocket } from 'ws';

export function keepAlive(socket: WebSocket, periodMs: number, scheduler: SchedulerLike): Subscription {
  let answered = true;
  const onPong = () => {
    answered = true;
  };
  socket.on('pong', onPong);
  const ticks = interval(periodMs, scheduler).subscribe(() => {
    if (socket.readyState !== socket.OPEN) return;
    if (!answered) {
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  });
  ticks.add(() => socket.off('pong', onPong));
  return ticks;
}
