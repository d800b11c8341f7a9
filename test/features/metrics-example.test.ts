/**
 * examples/metrics/prometheus.ts: counters and a latency histogram built
 * from events$ alone, read back as Prometheus text exposition. Durations come
 * from the server's virtual clock, so the buckets are exact.
 */
import { map, timer } from 'rxjs';
import { expect, test } from 'vitest';
import { prometheusMetrics } from '../../examples/metrics/prometheus.js';
import { Registry, ToolError } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { makeServer, rpc } from '../contract/helpers.js';

test('calls by method, tool and outcome; latency buckets by method; unknown tool names stay out of the labels', async () => {
  const registry = new Registry();
  const server = makeServer({ registry, logger: silentLogger() });
  registry
    .registerTool({ name: 'echo', handler: () => 'hi' })
    .registerTool({ name: 'slow', handler: () => timer(300, server.virtual).pipe(map(() => 'late')) })
    .registerTool({ name: 'refuse', handler: () => { throw new ToolError('no'); } });
  const metrics = prometheusMetrics(server.events$);
  await server.handleMessage(rpc(1, 'tools/call', { name: 'echo' }));
  await server.handleMessage(rpc(2, 'tools/call', { name: 'echo' }));
  await server.handleMessage(rpc(3, 'tools/call', { name: 'refuse' }));
  await server.handleMessage(rpc(4, 'tools/call', { name: 'made"up\nname' }));
  const slow = server.handleMessage(rpc(5, 'tools/call', { name: 'slow' }));
  server.virtual.flush();
  await slow;
  await server.handleMessage(rpc(6, 'ping'));
  metrics.stop();
  await server.handleMessage(rpc(7, 'ping')); // after stop: not counted
  expect(metrics.text()).toBe(
    [
      '# TYPE mcp_server_calls_total counter',
      'mcp_server_calls_total{method="tools/call",tool="echo",outcome="ok"} 2',
      'mcp_server_calls_total{method="tools/call",tool="refuse",outcome="tool_error"} 1',
      'mcp_server_calls_total{method="tools/call",tool="",outcome="error"} 1',
      'mcp_server_calls_total{method="tools/call",tool="slow",outcome="ok"} 1',
      'mcp_server_calls_total{method="ping",tool="",outcome="ok"} 1',
      '# TYPE mcp_server_operation_duration_seconds histogram',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="0.005"} 4',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="0.025"} 4',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="0.1"} 4',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="0.5"} 5',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="2.5"} 5',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="10"} 5',
      'mcp_server_operation_duration_seconds_bucket{method="tools/call",le="+Inf"} 5',
      'mcp_server_operation_duration_seconds_sum{method="tools/call"} 0.3',
      'mcp_server_operation_duration_seconds_count{method="tools/call"} 5',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="0.005"} 1',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="0.025"} 1',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="0.1"} 1',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="0.5"} 1',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="2.5"} 1',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="10"} 1',
      'mcp_server_operation_duration_seconds_bucket{method="ping",le="+Inf"} 1',
      'mcp_server_operation_duration_seconds_sum{method="ping"} 0',
      'mcp_server_operation_duration_seconds_count{method="ping"} 1',
      '',
    ].join('\n'),
  );
});

test('label values are escaped for the exposition format', async () => {
  const registry = new Registry().registerTool({ name: 'say "hi"\\now', handler: () => 'hi' });
  const server = makeServer({ registry, logger: silentLogger() });
  const metrics = prometheusMetrics(server.events$);
  await server.handleMessage(rpc(1, 'tools/call', { name: 'say "hi"\\now' }));
  expect(metrics.text()).toContain('mcp_server_calls_total{method="tools/call",tool="say \\"hi\\"\\\\now",outcome="ok"} 1');
  metrics.stop();
});
