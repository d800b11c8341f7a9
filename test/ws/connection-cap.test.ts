import { once } from 'node:events';
import { afterEach, expect, test } from 'vitest';
import { closeAll, guardedServer, listen, openClient, rawClient, refusedStatus } from './helpers.js';

afterEach(closeAll);

test('one socket over maxConnections is refused with 503, and a closed socket frees its place', async () => {
  const server = guardedServer();
  const { transport, url } = await listen(server, { maxConnections: 2 });
  const first = await openClient(url);
  await openClient(url);
  const refused = await refusedStatus(rawClient(url));
  expect(refused.status).toBe(503);
  expect(refused.body).toContain('maxConnections 2');
  expect(transport.connections).toBe(2);
  first.close();
  await once(first, 'close');
  // The server sees the close a moment after the client does; retry within a bound.
  for (let attempt = 0; attempt < 50 && transport.connections > 1; attempt++) await new Promise((r) => setTimeout(r, 10));
  expect(transport.connections).toBe(1);
  await openClient(url);
  expect(transport.connections).toBe(2);
});

test('maxConnections must be a positive integer', async () => {
  await expect(listen(guardedServer(), { maxConnections: 0 })).rejects.toThrow(/maxConnections must be a positive integer/);
});
