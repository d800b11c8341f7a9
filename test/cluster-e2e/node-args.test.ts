/** The cluster node's command line: the flags it takes, and a clear usage error for anything else. */
import { describe, expect, test } from 'vitest';
import { NodeUsageError, parseNodeArgs } from '../../examples/cluster/args.js';

describe('parseNodeArgs', () => {
  test('reads every flag, with REDIS_URL as the default Redis', () => {
    expect(
      parseNodeArgs(['--port', '4001', '--server-id', 'notes', '--node-id', 'a', '--option', 'maxInFlight=8', '--cluster-options', '{"permits":{"maxInFlight":6}}'], {
        REDIS_URL: 'redis://127.0.0.1:7000',
      }),
    ).toEqual({
      port: 4001,
      host: '127.0.0.1',
      redis: 'redis://127.0.0.1:7000',
      serverId: 'notes',
      nodeId: 'a',
      serverOptions: { maxInFlight: 8 },
      clusterOptions: { permits: { maxInFlight: 6 } },
      taskLeaseMs: undefined,
    });
  });

  test('--task-lease-ms sets the task store lease', () => {
    expect(parseNodeArgs(['--redis', 'redis://h:1', '--task-lease-ms', '1500'], {}).taskLeaseMs).toBe(1500);
  });

  test('several comma-separated URLs are the seeds of a Redis Cluster', () => {
    expect(parseNodeArgs(['--redis', 'redis://127.0.0.1:7001,redis://127.0.0.1:7002'], {}).redis).toEqual({
      cluster: ['redis://127.0.0.1:7001', 'redis://127.0.0.1:7002'],
    });
  });

  test.each([
    [[], 'is required'],
    [['--redis', 'http://x'], 'is required'],
    [['--redis', 'redis://h:1,http://x'], 'is required'],
    [['--redis', 'redis://h:1', '--port', '70000'], '--port must be a port number'],
    [['--redis', 'redis://h:1', '--node-id', 'a|b'], '--node-id must be'],
    [['--redis', 'redis://h:1', '--server-id', '{x}'], '--server-id must be'],
    [['--redis', 'redis://h:1', '--option', 'maxInFlight=-1'], '--option must be NAME=N'],
    [['--redis', 'redis://h:1', '--cluster-options', '[1]'], '--cluster-options must be a JSON object'],
    [['--redis', 'redis://h:1', '--cluster-options', '{'], '--cluster-options must be a JSON object'],
    [['--redis', 'redis://h:1', '--task-lease-ms', '29'], '--task-lease-ms must be an integer of at least 30'],
    [['--redis', 'redis://h:1', '--task-lease-ms', '1.5'], '--task-lease-ms must be an integer of at least 30'],
    [['--redis', 'redis://h:1', '--port'], '--port needs a value'],
    [['--redis', 'redis://h:1', '--bogus'], 'unknown argument: --bogus'],
  ])('%j is a usage error (%s)', (argv, message) => {
    expect(() => parseNodeArgs(argv, {})).toThrow(NodeUsageError);
    expect(() => parseNodeArgs(argv, {})).toThrow(message);
  });
});
