/**
 * Prometheus-style metrics built from `server.events$` alone: a counter of
 * calls by method, tool and outcome, and a latency histogram by method, as
 * the text exposition format. Serve `text()` on GET /metrics.
 */
import type { Observable } from 'rxjs';
import type { ServerEvent } from '../../lib/index.js';

const BUCKETS_SECONDS = [0.005, 0.025, 0.1, 0.5, 2.5, 10];
const label = (value: string) => value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

export function prometheusMetrics(events$: Observable<ServerEvent>) {
  const calls = new Map<string, number>();
  const latency = new Map<string, { buckets: number[]; sum: number; count: number }>();
  const subscription = events$.subscribe((e) => {
    if (e.type !== 'call_completed') return;
    // Only a tool that answered is a label: an unknown name is the client's to choose.
    const tool = e.method === 'tools/call' && e.outcome !== 'error' ? label(e.name ?? '') : '';
    const key = `method="${label(e.method)}",tool="${tool}",outcome="${e.outcome}"`;
    calls.set(key, (calls.get(key) ?? 0) + 1);
    const h = latency.get(e.method) ?? { buckets: BUCKETS_SECONDS.map(() => 0), sum: 0, count: 0 };
    BUCKETS_SECONDS.forEach((le, i) => (h.buckets[i]! += e.durationMs / 1000 <= le ? 1 : 0));
    h.sum += e.durationMs / 1000;
    h.count += 1;
    latency.set(e.method, h);
  });
  const text = () =>
    [
      '# TYPE mcp_server_calls_total counter',
      ...[...calls].map(([labels, n]) => `mcp_server_calls_total{${labels}} ${n}`),
      '# TYPE mcp_server_operation_duration_seconds histogram',
      ...[...latency].flatMap(([method, h]) => {
        const m = `method="${label(method)}"`;
        return [
          ...BUCKETS_SECONDS.map((le, i) => `mcp_server_operation_duration_seconds_bucket{${m},le="${le}"} ${h.buckets[i]}`),
          `mcp_server_operation_duration_seconds_bucket{${m},le="+Inf"} ${h.count}`,
          `mcp_server_operation_duration_seconds_sum{${m}} ${h.sum}`,
          `mcp_server_operation_duration_seconds_count{${m}} ${h.count}`,
        ];
      }),
    ].join('\n') + '\n';
  return { text, stop: () => subscription.unsubscribe() };
}
