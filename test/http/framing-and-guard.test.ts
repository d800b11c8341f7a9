import { describe, expect, test } from 'vitest';
import { formatSseComment, formatSseEvent } from '../../transports/http/sse-format.js';
import { hostAllowed, splitHost } from '../../transports/http/origin-guard.js';

describe('SSE framing', () => {
  test('fields in order, one data line per line of data, a blank line to end', () => {
    expect(formatSseEvent({ id: 'g1_2', data: '{"a":1}' })).toBe('id: g1_2\ndata: {"a":1}\n\n');
    expect(formatSseEvent({ event: 'endpoint', data: '/messages?sessionId=x' })).toBe('event: endpoint\ndata: /messages?sessionId=x\n\n');
    expect(formatSseEvent({ id: 'p1_1', retry: 1000, data: '' })).toBe('id: p1_1\nretry: 1000\ndata:\n\n');
    expect(formatSseEvent({ data: 'a\nb\r\nc' })).toBe('data: a\ndata: b\ndata: c\n\n');
  });

  test('a comment cannot smuggle an event in', () => {
    expect(formatSseComment('keep-alive')).toBe(': keep-alive\n\n');
    expect(formatSseComment('x\n\ndata: evil')).toBe(': x data: evil\n\n');
  });
});

describe('Host matching', () => {
  test('names with or without a port, IPv6 literals in brackets, case-insensitive', () => {
    expect(splitHost('LocalHost:3000')).toEqual({ name: 'localhost', port: '3000' });
    expect(splitHost('[::1]:8080')).toEqual({ name: '[::1]', port: '8080' });
    expect(splitHost('127.0.0.1')).toEqual({ name: '127.0.0.1', port: null });
    expect(splitHost('evil.example:80:81')).toBeUndefined();
    const loopback = ['localhost', '127.0.0.1', '[::1]'];
    expect(hostAllowed('localhost:1234', loopback)).toBe(true);
    expect(hostAllowed('[::1]', loopback)).toBe(true);
    expect(hostAllowed('localhost.evil.example', loopback)).toBe(false);
    expect(hostAllowed('127.0.0.1.nip.io:80', loopback)).toBe(false);
    expect(hostAllowed('api.example:443', ['api.example:8443'])).toBe(false);
    expect(hostAllowed('api.example:8443', ['api.example:8443'])).toBe(true);
  });
});
