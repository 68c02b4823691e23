import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { resolveClientIp } from '../../src/http/client-ip.ts';
import { parseTrustProxy } from '../../src/http/trust-proxy.ts';

// In the manner of echoip's TestIPv4FromRequest: each case says why the answer is what it is.
const cases: { why: string; peer: string; trust: string; headers: IncomingHttpHeaders; want: string }[] = [
  { why: 'no proxy trusted: the peer is the client', peer: '203.0.113.7', trust: '', headers: {}, want: '203.0.113.7' },
  {
    why: 'untrusted peer: its X-Forwarded-For is a claim anyone can make',
    peer: '203.0.113.7',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '198.51.100.1' },
    want: '203.0.113.7',
  },
  {
    why: 'trusted peer: the address it appended is the client',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '198.51.100.1' },
    want: '198.51.100.1',
  },
  {
    why: 'client-supplied entries left of the real one are ignored (right-most untrusted wins)',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.1' },
    want: '198.51.100.1',
  },
  {
    why: 'several trusted proxies are skipped from the right',
    peer: '127.0.0.1',
    trust: 'loopback,10.0.0.0/8',
    headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.1, 10.1.2.3, 10.0.0.9' },
    want: '198.51.100.1',
  },
  {
    why: 'every entry trusted: the left-most is the farthest known hop',
    peer: '127.0.0.1',
    trust: 'loopback,private',
    headers: { 'x-forwarded-for': '192.168.1.20, 10.0.0.9' },
    want: '192.168.1.20',
  },
  {
    why: 'IPv4-mapped IPv6 peer is an IPv4 client',
    peer: '::ffff:203.0.113.9',
    trust: '',
    headers: {},
    want: '203.0.113.9',
  },
  {
    why: 'IPv4-mapped peer still matches an IPv4 trusted range',
    peer: '::ffff:127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '198.51.100.2' },
    want: '198.51.100.2',
  },
  {
    why: 'IPv6 peer is reported in canonical compressed lower case',
    peer: '2001:DB8:0:0:0:0:0:1',
    trust: '',
    headers: {},
    want: '2001:db8::1',
  },
  {
    why: 'IPv6 client behind an IPv6 loopback proxy',
    peer: '::1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '2001:db8::42' },
    want: '2001:db8::42',
  },
  {
    why: 'garbage in X-Forwarded-For falls back to the peer, never a crash',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': 'not-an-ip' },
    want: '127.0.0.1',
  },
  {
    why: 'an empty X-Forwarded-For is malformed: the peer',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '' },
    want: '127.0.0.1',
  },
  {
    why: 'ports some proxies append are stripped (IPv4 and bracketed IPv6)',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '[2001:db8::5]:4711, 198.51.100.3:8080' },
    want: '198.51.100.3',
  },
  {
    why: 'RFC 7239 Forwarded with a quoted, bracketed IPv6 and port',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https' },
    want: '2001:db8:cafe::17',
  },
  {
    why: 'Forwarded with several elements: right-most untrusted',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { forwarded: 'for=6.6.6.6, for=198.51.100.4;by=127.0.0.1, for=127.0.0.1' },
    want: '198.51.100.4',
  },
  {
    why: 'Forwarded "unknown" cannot be located: the peer',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { forwarded: 'for=unknown' },
    want: '127.0.0.1',
  },
  {
    why: 'X-Forwarded-For takes precedence over Forwarded when both are present',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': '198.51.100.5', forwarded: 'for=198.51.100.6' },
    want: '198.51.100.5',
  },
  {
    why: 'X-Real-IP from a trusted proxy when no chain header is present',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-real-ip': '198.51.100.7' },
    want: '198.51.100.7',
  },
  {
    why: 'CF-Connecting-IP from a trusted proxy',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'cf-connecting-ip': '2001:db8::77' },
    want: '2001:db8::77',
  },
  {
    why: 'a malformed X-Real-IP falls back to the peer',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-real-ip': '1.2.3.4.5' },
    want: '127.0.0.1',
  },
  {
    why: 'inet_aton shorthands and zone ids are not addresses: the peer',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': 'fe80::1%eth0' },
    want: '127.0.0.1',
  },
  {
    why: 'a trusted CIDR given as a single address',
    peer: '192.0.2.10',
    trust: '192.0.2.10',
    headers: { 'x-forwarded-for': '198.51.100.8' },
    want: '198.51.100.8',
  },
  {
    why: 'repeated header lines arrive joined; the right-most untrusted still wins',
    peer: '127.0.0.1',
    trust: 'loopback',
    headers: { 'x-forwarded-for': ['6.6.6.6', '198.51.100.9'] as unknown as string },
    want: '198.51.100.9',
  },
];

test('resolveClientIp', async (t) => {
  for (const c of cases) {
    await t.test(c.why, () => {
      assert.equal(resolveClientIp(c.peer, c.headers, parseTrustProxy(c.trust)), c.want);
    });
  }
});

test('parseTrustProxy rejects what is not a CIDR or a known word, naming it', () => {
  assert.throws(() => parseTrustProxy('loopback, 10.0.0.0/33'), /10\.0\.0\.0\/33/);
  assert.throws(() => parseTrustProxy('everyone'), /everyone/);
  assert.equal(parseTrustProxy('').enabled, false);
  assert.deepEqual(parseTrustProxy('private').isTrusted('172.31.255.255'), true);
  assert.deepEqual(parseTrustProxy('private').isTrusted('172.32.0.1'), false);
});
