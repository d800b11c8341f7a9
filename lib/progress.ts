/**
 * A progress update a tool handler that returns an Observable may emit
 * before its result: `concat(of(progressUpdate(1, 2)), work$)`. It is sent as
 * notifications/progress (when the request carried a progress token) and is
 * never taken for the result.
 */
export class ProgressUpdate {
  constructor(
    readonly progress: number,
    readonly total?: number,
    readonly message?: string,
  ) {}
}

/** A progress value an Observable handler emits before its result: sent as `notifications/progress`, never taken as the result. */
export function progressUpdate(progress: number, total?: number, message?: string): ProgressUpdate {
  return new ProgressUpdate(progress, total, message);
}
