import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseAbuseAddress, readAbuseContact, registryOf } from '../../src/abuse/abuse-contact.ts';

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'abuse');
const scenarios = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.reading.json'))
  .map((name) => name.replace(/\.reading\.json$/, ''));

test('each registry-shaped answer gives the contact, or the parent to ask, or nothing', () => {
  assert.equal(scenarios.length, 6);
  for (const scenario of scenarios) {
    const body = readFileSync(path.join(FIXTURES, `${scenario}.json`), 'utf8');
    const { answeredUrl, reading } = JSON.parse(readFileSync(path.join(FIXTURES, `${scenario}.reading.json`), 'utf8'));
    assert.deepEqual(readAbuseContact(body, answeredUrl), reading, scenario);
  }
});

const network = (fields: object) =>
  JSON.stringify({
    objectClassName: 'ip network',
    handle: 'N',
    startAddress: '41.1.1.0',
    endAddress: '41.1.1.255',
    ...fields,
  });
const vcard = (...lines: unknown[][]) => ['vcard', [['version', {}, 'text', '4.0'], ...lines]];

test('without an up link, a parent handle written as a range or a prefix is asked as ip/<prefix> of the same server', () => {
  const at = 'https://rdap.afrinic.net/rdap/ip/41.1.1.7';
  const parentOf = (parentHandle: string) => readAbuseContact(network({ parentHandle }), at);
  assert.deepEqual(parentOf('41.1.0.0 - 41.1.255.255'), {
    kind: 'parent',
    url: 'https://rdap.afrinic.net/rdap/ip/41.1.0.0/16',
    network: { handle: 'N', name: null, range: '41.1.1.0 - 41.1.1.255' },
  });
  // A range that is no single prefix: the smallest prefix holding it (its parent or above, never the network itself).
  assert.equal(
    (parentOf('41.0.0.0-41.2.255.255') as { url: string }).url,
    'https://rdap.afrinic.net/rdap/ip/41.0.0.0/14',
  );
  assert.equal((parentOf('2c0f:f000::/20') as { url: string }).url, 'https://rdap.afrinic.net/rdap/ip/2c0f:f000::/20');
  // ARIN's handles are names, not addresses: without an up link there is nothing to ask.
  assert.equal(parentOf('NET-41-0-0-0-1').kind, 'none');
  assert.equal(parentOf('41.2.0.0 - 41.1.0.0').kind, 'none');
  // The up link wins, resolved against the URL that answered.
  const linked = readAbuseContact(
    network({ parentHandle: '41.1.0.0 - 41.1.255.255', links: [{ rel: 'up', href: '/rdap/ip/41.0.0.0/8' }] }),
    at,
  );
  assert.equal((linked as { url: string }).url, 'https://rdap.afrinic.net/rdap/ip/41.0.0.0/8');
});

test('an abuse entity needs an e-mail address; the network’s own entities come before nested ones', () => {
  const entities = [
    { handle: 'PHONE-ONLY', roles: ['abuse'], vcardArray: vcard(['tel', {}, 'text', '+1 555 0100']) },
    {
      handle: 'ORG',
      roles: ['registrant'],
      entities: [
        { handle: 'NESTED', roles: ['abuse'], vcardArray: vcard(['email', {}, 'text', 'nested@isp.example']) },
      ],
    },
    {
      handle: 'TOP',
      roles: ['Abuse'],
      vcardArray: vcard(['email', {}, 'text', ' top@isp.example '], ['fn', {}, 'text', 'Top']),
    },
  ];
  assert.deepEqual(readAbuseContact(network({ entities }), 'https://x.example/ip/41.1.1.1'), {
    kind: 'contact',
    entity: { email: 'top@isp.example', name: 'Top', handle: 'TOP' },
    network: { handle: 'N', name: null, range: '41.1.1.0 - 41.1.1.255' },
  });
  const nestedOnly = readAbuseContact(network({ entities: entities.slice(0, 2) }), 'https://x.example/ip/41.1.1.1');
  assert.equal(nestedOnly.kind === 'contact' && nestedOnly.entity.handle, 'NESTED');
  // Odd shapes are skipped, not thrown on.
  const odd = network({ entities: [null, 'x', { roles: 'abuse' }, { roles: ['abuse'], vcardArray: ['vcard', 'x'] }] });
  assert.equal(readAbuseContact(odd, 'https://x.example/ip/41.1.1.1').kind, 'none');
});

test('what is not an RDAP IP network is unreadable, saying why', () => {
  const url = 'https://x.example/ip/41.1.1.1';
  assert.deepEqual(readAbuseContact('<html>maintenance</html>', url), {
    kind: 'unreadable',
    reason: 'answered 200 with a body that is not JSON',
  });
  assert.equal(readAbuseContact('[1,2]', url).kind, 'unreadable');
  assert.deepEqual(readAbuseContact('{"objectClassName":"domain"}', url), {
    kind: 'unreadable',
    reason: 'answered a "domain" object, not "ip network"',
  });
});

test('the registry is named from the host that answered, else the host', () => {
  assert.deepEqual(
    [
      'https://rdap.db.ripe.net/ip/1.2.3.4',
      'https://rdap.arin.net/registry/ip/8.8.8.8',
      'https://rdap.apnic.net/ip/1.1.1.1',
      'https://rdap.lacnic.net/rdap/ip/177.1.1.1',
      'https://rdap.afrinic.net/rdap/ip/41.1.1.1',
      'https://RDAP.Example.net/ip/1.1.1.1',
      'https://notripe.net/ip/1.1.1.1',
    ].map(registryOf),
    ['RIPE NCC', 'ARIN', 'APNIC', 'LACNIC', 'AFRINIC', 'rdap.example.net', 'notripe.net'],
  );
});

test('ip= takes a public address in any spelling and refuses special-purpose ones, saying why', () => {
  assert.deepEqual(parseAbuseAddress('8.8.8.8'), { ok: true, ip: '8.8.8.8' });
  assert.deepEqual(parseAbuseAddress('::FFFF:8.8.8.8'), { ok: true, ip: '8.8.8.8' });
  assert.deepEqual(parseAbuseAddress('2001:0DB9::1'), { ok: true, ip: '2001:db9::1' });
  for (const bad of ['', 'example.com', '010.1.1.1', '1.2.3', 'fe80::1%eth0', '8.8.8.8/24']) {
    const parsed = parseAbuseAddress(bad);
    assert.equal(parsed.ok, false, bad);
    assert.match(parsed.ok ? '' : parsed.reason, /^not an IPv4 address/, bad);
  }
  assert.deepEqual(parseAbuseAddress('10.1.2.3'), {
    ok: false,
    reason:
      '10.1.2.3 is in 10.0.0.0/8 (Private-Use, RFC 1918), a special-purpose range no regional registry assigns, so no network holds it',
  });
  for (const special of ['127.0.0.1', '192.0.2.1', '2001:db8::1', '::1', '2002:808:808::1', '100.64.0.1']) {
    assert.equal(parseAbuseAddress(special).ok, false, special);
  }
});
