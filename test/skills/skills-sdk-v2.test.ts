/**
 * The official TypeScript SDK v2 client's Skills API (SkillsClient from
 * @modelcontextprotocol/client/ext/skills) against the conformance fixture
 * over Streamable HTTP on 127.0.0.1, speaking 2026-07-28: it sees the
 * extension, lists and gets the skill, and reads its files, each verified
 * against the entry (size, SHA-256 digest, and for the SKILL.md the
 * frontmatter field by field), and reads a directory.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createEverythingServer } from '../../examples/everything/server.js';
import { serveHttp } from '../../transports/index.js';

const URI = 'skill://conformance-demo/SKILL.md';
let close: () => Promise<void>;
let client: Client;

beforeAll(async () => {
  const server = createEverythingServer();
  const http = await serveHttp(server, { port: 0 });
  client = new Client({ name: 'skills-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  close = async () => {
    await client.close().catch(() => {});
    await http.close();
    server.close();
  };
});
afterAll(() => close());

test('the extension is seen, with directoryRead', () => {
  const skills = new SkillsClient(client);
  expect(skills.supported).toBe(true);
  expect(skills.directoryRead).toBe(true);
});

test('list, get and read: every file verified against the entry, the frontmatter equal to the listing', async () => {
  const skills = new SkillsClient(client);
  const listing = await skills.list();
  expect(listing.invalid).toEqual([]);
  expect(listing).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  const [entry] = listing.skills;
  expect(entry?.uri).toBe(URI);
  expect((await skills.get(URI)).skill).toEqual(entry);
  const manifest = await skills.read(entry!);
  expect(manifest).toMatchObject({ uri: URI, verified: true, frontmatter: { name: 'conformance-demo', license: 'MIT', metadata: { version: '1.0' } } });
  expect(manifest.body).toContain('# Conformance demo');
  const guide = await skills.read(entry!, 'references/GUIDE.md');
  expect(guide).toMatchObject({ verified: true, mimeType: 'text/markdown' });
});

test('a directory read lists the skill root', async () => {
  const { resources } = await new SkillsClient(client).readDirectory('skill://conformance-demo');
  expect(resources.map((r) => [r.name, r.mimeType])).toEqual([
    ['SKILL.md', 'text/markdown'],
    ['references', 'inode/directory'],
    ['templates', 'inode/directory'],
  ]);
});
