import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeWhoisText } from '../../src/whois/decode.ts';
import { parseWhoisTarget, targetText } from '../../src/whois/parse/target.ts';
import { whoisQueryFor } from '../../src/whois/query-form.ts';
import { formatWhoisServer, parseWhoisServer } from '../../src/whois/server-address.ts';

test('parseWhoisTarget: domains become punycode, addresses their one spelling', () => {
  const cases: [string, string | null][] = [
    // Regression (issue 18): what people paste. URLs give their host; AS numbers and prefixes are
    // targets of their own, not misread as bad IP addresses.
    ['https://example.com/path', 'domain:example.com'],
    ['HTTP://WWW.Example.COM:8080/a?b#c', 'domain:www.example.com'],
    ['https://192.0.2.1/', 'ip:192.0.2.1'],
    ['https://[2001:db8::1]:443/', 'ip:2001:db8::1'],
    ['EXAMPLE.COM', 'domain:example.com'],
    ['192.0.2.1.', 'ip:192.0.2.1'],
    ['AS15169', 'asn:AS15169'],
    ['as15169', 'asn:AS15169'],
    ['AS0', 'asn:AS0'],
    ['AS4294967295', 'asn:AS4294967295'],
    ['AS4294967296', null], // 32 bits at most
    ['AS015169', null], // a leading zero is more likely a typo
    ['AS', null],
    ['AS-15169', null],
    ['8.8.8.0/24', 'network:8.8.8.0/24'],
    ['2001:DB8::/32', 'network:2001:db8::/32'],
    ['192.0.2.7/32', 'network:192.0.2.7/32'],
    ['8.8.8.8/24', null], // host bits set: the 400 names 8.8.8.0/24
    ['8.8.8.0/33', null],
    ['8.8.8.0/', null],
    ['8.8.8.0/+24', null],
    ['example.com/24', null],
    ['https://user@example.com/', null],
    ['１２７.０.０.１', null], // fullwidth digits are not read as an address (issue 18, item 24)
    ['Example.COM.', 'domain:example.com'],
    [' bücher.de ', 'domain:xn--bcher-kva.de'],
    ['xn--bcher-kva.de', 'domain:xn--bcher-kva.de'],
    ['sub.domain.co.uk', 'domain:sub.domain.co.uk'],
    ['192.0.2.1', 'ip:192.0.2.1'],
    ['::ffff:192.0.2.1', 'ip:192.0.2.1'], // mapped: the IPv4 address
    ['2001:DB8:0:0::1', 'ip:2001:db8::1'],
    ['com', null], // a TLD alone is not registered by anyone
    ['_dmarc.example.com', null],
    ['example..com', null],
    ['1.2.3', null], // inet_aton shorthand, neither an address nor a name
    ['999.1.1.1', null],
    ['fe80::1%eth0', null],
    ['2001:db8::g', null],
    ['', null],
  ];
  for (const [input, expected] of cases) {
    const parsed = parseWhoisTarget(input);
    const got = parsed.ok ? `${parsed.target.kind}:${targetText(parsed.target)}` : null;
    assert.equal(got, expected, input);
  }
});

test('parseWhoisTarget says what is wrong with a network or an AS number', () => {
  const reasons: [string, RegExp][] = [
    ['8.8.8.8/24', /bits set beyond \/24; the network is 8\.8\.8\.0\/24/],
    ['2001:db8::1/32', /the network is 2001:db8::\/32/],
    ['8.8.8.0/33', /prefix length must be 0 to 32/],
    ['example.com/24', /"example\.com" is not an IP address/],
    ['AS4294967296', /not an AS number \(AS0 to AS4294967295\)/],
  ];
  for (const [input, reason] of reasons) {
    const parsed = parseWhoisTarget(input);
    assert.equal(parsed.ok, false, input);
    if (!parsed.ok) assert.match(parsed.reason, reason, input);
  }
  const network = parseWhoisTarget('8.8.8.0/24');
  assert.deepEqual(network.ok && network.target, { kind: 'network', cidr: '8.8.8.0/24', address: '8.8.8.0' });
  const asn = parseWhoisTarget('as15169');
  assert.deepEqual(asn.ok && asn.target, { kind: 'asn', asn: 15169 });
});

test('parseWhoisServer reads WHOIS_SERVER and referral forms', () => {
  const cases: [string, string | null][] = [
    ['whois.iana.org', 'whois.iana.org:43'],
    ['WHOIS.RIPE.NET:4343', 'whois.ripe.net:4343'],
    ['192.0.2.43', '192.0.2.43:43'],
    ['192.0.2.43:4343', '192.0.2.43:4343'],
    ['[2001:db8::43]:4343', '[2001:db8::43]:4343'],
    ['2001:db8::43', '[2001:db8::43]:43'],
    ['whois.example:0', null],
    ['whois.example:70000', null],
    ['whois.example:', null],
    ['who is', null],
    ['[whois.example]:43', null],
    // IPv4 addresses in legacy forms to URL parsers: refused, not connected to as something else.
    ['127.1:4344', null],
    ['999.1.1.1', null],
    ['0x7f.1', null],
    ['whois.nic.xn--p1ai', 'whois.nic.xn--p1ai:43'],
  ];
  for (const [input, expected] of cases) {
    const parsed = parseWhoisServer(input);
    assert.equal(parsed.ok ? formatWhoisServer(parsed.server) : null, expected, input);
  }
  const referral = parseWhoisServer('whois.example', 4343);
  assert.ok(referral.ok && referral.server.port === 4343);
});

test('whoisQueryFor: server-specific forms only where they apply', () => {
  const domain = (name: string) => ({ kind: 'domain', name }) as const;
  const ip = (address: string) => ({ kind: 'ip', address }) as const;
  assert.equal(whoisQueryFor('whois.arin.net', ip('192.0.2.1')), 'n + 192.0.2.1');
  assert.equal(whoisQueryFor('WHOIS.ARIN.NET', ip('2001:db8::1')), 'n + 2001:db8::1');
  assert.equal(whoisQueryFor('whois.ripe.net', ip('192.0.2.1')), '192.0.2.1');
  assert.equal(whoisQueryFor('whois.nic.ad.jp', ip('192.0.2.1')), '192.0.2.1/e');
  assert.equal(whoisQueryFor('whois.denic.de', domain('google.de')), '-T dn,ace google.de');
  assert.equal(whoisQueryFor('whois.denic.de', domain('google.com')), 'google.com');
  assert.equal(whoisQueryFor('whois.jprs.jp', domain('google.co.jp')), 'google.co.jp/e');
  assert.equal(whoisQueryFor('whois.verisign-grs.com', domain('google.com')), 'google.com');
});

test('decodeWhoisText: UTF-8 when valid, Latin-1 otherwise, never a replacement character', () => {
  const text = 'Inhaber: Müller & Söhne, Straße 1, Zürich — ©';
  assert.equal(decodeWhoisText(Buffer.from(text, 'utf8')), text);
  const latin1 = 'Inhaber: Müller & Söhne, Straße 1, Zürich ©';
  assert.equal(decodeWhoisText(Buffer.from(latin1, 'latin1')), latin1);
  assert.equal(decodeWhoisText(Buffer.from('\ufeffDomain: x\n', 'utf8')), 'Domain: x\n');
  assert.equal(decodeWhoisText(new Uint8Array(0)), '');
});
