import { expect, test } from 'vitest';
import { UsageError, parseCommandLine } from '../../examples/cli/args.js';

test('help: --help, -h, or nothing at all', () => {
  for (const argv of [['--help'], ['-h'], [], ['serve', 'x.js', '--help']]) expect(parseCommandLine(argv)).toEqual({ command: 'help' });
});

test('serve defaults to stdio', () => {
  expect(parseCommandLine(['serve', './s.js'])).toEqual({
    command: 'serve',
    module: './s.js',
    transport: { kind: 'stdio' },
    host: '127.0.0.1',
    allowHosts: [],
  });
});

test('serve over ws or http, with a host and extra allowed hosts', () => {
  expect(parseCommandLine(['serve', 's.js', '--ws', '0'])).toMatchObject({ transport: { kind: 'ws', port: 0 } });
  expect(parseCommandLine(['serve', 's.js', '--http', '8080', '--host', '0.0.0.0', '--allow-host', 'a', '--allow-host', 'b'])).toMatchObject({
    transport: { kind: 'http', port: 8080 },
    host: '0.0.0.0',
    allowHosts: ['a', 'b'],
  });
});

test.each([
  [['serve', 's.js', '--ws', '1', '--http', '2'], 'choose one transport'],
  [['serve', 's.js', '--ws', 'abc'], '--ws needs a port'],
  [['serve', 's.js', '--http', '70000'], '--http needs a port'],
  [['serve'], 'needs the module'],
  [['run', 's.js'], 'unknown command'],
  [['serve', 's.js', 'extra'], 'unexpected argument'],
  [['serve', 's.js', '--bogus'], 'bogus'],
  [['serve', 's.js', '--host', 'h'], 'apply to --http and --ws only'],
])('%j is a usage error (%s)', (argv, message) => {
  expect(() => parseCommandLine(argv)).toThrow(UsageError);
  expect(() => parseCommandLine(argv)).toThrow(message);
});
