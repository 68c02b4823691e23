import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { DnsError } from '../../src/dns/errors.ts';
import type { Resolver } from '../../src/dns/resolver.ts';
import { forbiddenTargetReason, parseTargetPolicy, resolveTarget } from '../../src/dns/target-policy.ts';

/** A resolver whose answers are a table; a name mapped to an Error throws it. */
function tableResolver(table: Record<string, { address: string; family: 4 | 6 }[] | Error>): Resolver {
  return {
    query: async () => {
      throw new Error('not used');
    },
    reverse: async () => null,
    resolveAddresses: async (name, family = 'any') => {
      const entry = table[name] ?? [];
      if (entry instanceof Error) throw entry;
      return entry.filter((item) => family === 'any' || item.family === family);
    },
  };
}

const resolver = tableResolver({
  'public.test': [
    { address: '2001:db8::1', family: 6 },
    { address: '8.8.4.4', family: 4 },
  ],
  'rebind.test': [{ address: '127.0.0.1', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'v6only.test': [{ address: '2606:4700::1111', family: 6 }],
  'broken.test': new DnsError('SERVFAIL', 'the server answered SERVFAIL'),
});
const strict = { allowPrivate: false };

describe('resolveTarget', () => {
  it('prefers IPv4 and returns the address to connect to', async () => {
    assert.deepEqual(await resolveTarget('public.test', { resolver, policy: strict }), {
      ok: true,
      host: 'public.test',
      address: '8.8.4.4',
      family: 4,
    });
  });

  it('honours a requested family', async () => {
    const v6 = await resolveTarget('v6only.test', { resolver, policy: strict, family: 6 });
    assert.equal(v6.ok && v6.address, '2606:4700::1111');
    const v4 = await resolveTarget('v6only.test', { resolver, policy: strict, family: 4 });
    assert.deepEqual(v4.ok ? null : [v4.reason, v4.message], [
      'no-address',
      'v6only.test has no IPv4 address (the name does not resolve)',
    ]);
  });

  it('refuses a name that resolves to loopback or metadata, saying what it is', async () => {
    const rebind = await resolveTarget('rebind.test', { resolver, policy: strict });
    assert.equal(rebind.ok, false);
    assert.match(rebind.ok ? '' : rebind.message, /^rebind\.test resolves to 127\.0\.0\.1 is a loopback address/);
    const metadata = await resolveTarget('metadata.test', { resolver, policy: strict });
    assert.match(metadata.ok ? '' : metadata.message, /metadata address/);
  });

  it('allows private targets when the operator says so', async () => {
    const allowed = await resolveTarget('rebind.test', { resolver, policy: { allowPrivate: true } });
    assert.equal(allowed.ok && allowed.address, '127.0.0.1');
  });

  it('reports a failed lookup as dns-failure, not as a missing name', async () => {
    const broken = await resolveTarget('broken.test', { resolver, policy: strict });
    assert.equal(broken.ok ? null : broken.reason, 'dns-failure');
  });

  it('checks IP literals directly', async () => {
    assert.equal(forbiddenTargetReason('8.8.8.8', strict), null);
    assert.match(forbiddenTargetReason('10.1.2.3', strict) ?? '', /^10\.1\.2\.3 is a private address/);
    assert.match(forbiddenTargetReason('::ffff:192.168.1.1', strict) ?? '', /private/);
    assert.equal(forbiddenTargetReason('10.1.2.3', { allowPrivate: true }), null);
  });
});

describe('ALLOW_PRIVATE_TARGETS as a list of CIDRs (issue 23)', () => {
  const only = parseTargetPolicy('10.20.0.0/16, 127.0.0.1/32,fd00:1::/32');

  it('opens only the special-purpose addresses inside the listed ranges', () => {
    for (const ip of ['10.20.0.1', '10.20.255.255', '127.0.0.1', '::ffff:127.0.0.1', 'fd00:1::5']) {
      assert.equal(forbiddenTargetReason(ip, only), null, ip);
    }
    for (const ip of ['10.21.0.1', '127.0.0.2', '::1', '169.254.169.254', '192.168.1.1', 'fd00:2::5', 'fe80::1%eth0']) {
      assert.notEqual(forbiddenTargetReason(ip, only), null, ip);
    }
    assert.match(forbiddenTargetReason('127.0.0.2', only) ?? '', /^127\.0\.0\.2 is a loopback address/);
    // Public addresses stay reachable whatever the list.
    assert.equal(forbiddenTargetReason('8.8.8.8', only), null);
  });

  it('judges 6to4 and Teredo targets by the IPv4 address they embed, in words, and opens them with it (issue 28)', () => {
    assert.match(
      forbiddenTargetReason('2002:7f00:2::', strict) ?? '',
      /^2002:7f00:2:: is a 6to4 address for 127\.0\.0\.2, which is a loopback address \(Loopback, 127\.0\.0\.0\/8\)/,
    );
    assert.match(forbiddenTargetReason('2002:7f00:2::', only) ?? '', /6to4 address for 127\.0\.0\.2/);
    assert.equal(forbiddenTargetReason('2002:7f00:1::', only), null, '127.0.0.1 is in the list');
    assert.match(
      forbiddenTargetReason('2001:0:4136:e378:8000:63bf:80ff:fffd', strict) ?? '',
      /is a Teredo client address for 127\.0\.0\.2, which is a loopback address/,
    );
    assert.equal(forbiddenTargetReason('2002:808:808::1', strict), null);
  });

  it('applies to resolved names: a name resolving inside a range passes, outside is refused', async () => {
    const inside = await resolveTarget('rebind.test', { resolver, policy: only });
    assert.equal(inside.ok && inside.address, '127.0.0.1');
    const metadata = await resolveTarget('metadata.test', { resolver, policy: only });
    assert.equal(metadata.ok ? null : metadata.reason, 'forbidden');
  });

  it('keeps true meaning every address and false none, in the usual spellings', () => {
    for (const word of ['true', 'TRUE', '1', 'yes', 'on'])
      assert.equal(parseTargetPolicy(word).allowPrivate, true, word);
    for (const word of [undefined, '', ' ', 'false', '0', 'no', 'off']) {
      assert.equal(parseTargetPolicy(word).allowPrivate, false, String(word));
    }
    assert.equal(forbiddenTargetReason('169.254.169.254', parseTargetPolicy('true')), null);
  });

  it('refuses a bad list at startup, naming the variable and the entry', () => {
    for (const [raw, entry] of [
      ['10.0.0.0/33', '10.0.0.0/33'],
      ['10.0.0.1/8', '10.0.0.1/8'],
      ['127.0.0.1/32,nope', 'nope'],
      ['fd00::/200', 'fd00::/200'],
      ['maybe', 'maybe'],
    ] as const) {
      assert.throws(
        () => loadConfig({ ALLOW_PRIVATE_TARGETS: raw }),
        (error: Error) =>
          error.message.includes(
            `ALLOW_PRIVATE_TARGETS: must be true, false or a comma-separated list of CIDRs; "${entry}" is not a CIDR`,
          ),
        raw,
      );
    }
    assert.throws(
      () => loadConfig({ ALLOW_PRIVATE_TARGETS: ' , ' }),
      /ALLOW_PRIVATE_TARGETS: must be true, false or a comma-separated list/,
    );
    assert.deepEqual(
      (loadConfig({ ALLOW_PRIVATE_TARGETS: '127.0.0.1' }).allowPrivateTargets.allowPrivate as unknown[]).length,
      1,
    );
  });
});
