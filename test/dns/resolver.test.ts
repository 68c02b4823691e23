import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { createMemoryDnsCache, noDnsCache } from '../../src/dns/cache.ts';
import { DnsError } from '../../src/dns/errors.ts';
import { formatRecordValue } from '../../src/dns/format.ts';
import { createResolver } from '../../src/dns/resolver.ts';
import { type FakeDnsServer, recordsHandler, startFakeDnsServer } from '../support/fake-dns-server.ts';

const ZONE: Answer[] = [
  { type: 'CNAME', name: 'www.example.test', ttl: 600, data: 'web.example.test' },
  { type: 'CNAME', name: 'web.example.test', ttl: 900, data: 'host.example.test' },
  { type: 'A', name: 'host.example.test', ttl: 120, data: '192.0.2.20' },
  { type: 'A', name: 'host.example.test', ttl: 120, data: '192.0.2.21' },
  { type: 'AAAA', name: 'host.example.test', ttl: 120, data: '2001:db8::20' },
  { type: 'A', name: 'v4only.example.test', ttl: 60, data: '192.0.2.30' },
  { type: 'PTR', name: '20.2.0.192.in-addr.arpa', ttl: 3600, data: 'host.example.test' },
  { type: 'PTR', name: `1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`, ttl: 3600, data: 'v6.example.test' },
];

const describeChain = (records: { name: string; type: string; ttl: number }[]) =>
  records.map((record) => `${record.name} ${record.ttl} ${record.type} ${formatRecordValue(record as never)}`);

describe('resolver', () => {
  let fake: FakeDnsServer;
  before(async () => {
    fake = await startFakeDnsServer(recordsHandler(ZONE));
  });
  after(() => fake.close());

  it('returns the CNAMEs on the way and the records asked for, then the same from the cache', async () => {
    let time = 0;
    const resolver = createResolver({ servers: [fake.server], cache: createMemoryDnsCache({ now: () => time }) });
    const first = await resolver.query('WWW.example.test.', 'A');
    assert.equal(first.fromCache, false);
    assert.equal(first.rcode, 'NOERROR');
    assert.deepEqual(describeChain(first.answers), [
      'www.example.test 600 CNAME web.example.test',
      'web.example.test 900 CNAME host.example.test',
      'host.example.test 120 A 192.0.2.20',
      'host.example.test 120 A 192.0.2.21',
    ]);
    time += 30_000;
    const queriesBefore = fake.count('www.example.test', 'A');
    const second = await resolver.query('www.example.test', 'A');
    assert.equal(second.fromCache, true);
    assert.deepEqual(
      second.answers.map((record) => record.ttl),
      [570, 870, 90, 90],
    );
    assert.equal(fake.count('www.example.test', 'A'), queriesBefore);
  });

  it('caches NXDOMAIN with its SOA', async () => {
    const resolver = createResolver({ servers: [fake.server] });
    const first = await resolver.query('missing.example.test', 'A');
    const second = await resolver.query('missing.example.test', 'A');
    assert.equal(first.rcode, 'NXDOMAIN');
    assert.equal(second.fromCache, true);
    assert.equal(second.authority[0]?.type, 'SOA');
    assert.equal(fake.count('missing.example.test', 'A'), 1);
  });

  it('shares one exchange between identical questions asked together', async () => {
    const resolver = createResolver({ servers: [fake.server], cache: noDnsCache });
    const before = fake.count('v4only.example.test', 'A');
    await Promise.all([1, 2, 3].map(() => resolver.query('v4only.example.test', 'A')));
    assert.equal(fake.count('v4only.example.test', 'A') - before, 1);
  });

  it('refuses an invalid name or type with a RangeError', async () => {
    const resolver = createResolver({ servers: [fake.server] });
    await assert.rejects(resolver.query('bad..name', 'A'), RangeError);
    await assert.rejects(resolver.query('example.test', 'ANY' as never), RangeError);
  });

  it('drops records that are not on the way from the question to the answer', async () => {
    const polluter = await startFakeDnsServer((question) => ({
      answers: [
        { type: 'A', name: question.name, ttl: 60, data: '192.0.2.1' },
        { type: 'A', name: 'bank.test', ttl: 60, data: '203.0.113.66' },
      ],
    }));
    try {
      const result = await createResolver({ servers: [polluter.server] }).query('a.test', 'A');
      assert.deepEqual(describeChain(result.answers), ['a.test 60 A 192.0.2.1']);
    } finally {
      await polluter.close();
    }
  });

  it('follows a CNAME whose target the server said nothing about', async () => {
    // As an authoritative server answers for a CNAME pointing out of its zone: no SOA, no data.
    const authoritative = await startFakeDnsServer((question) => {
      if (question.name === 'alias.zone-a.test') {
        return {
          authoritative: true,
          answers: [{ type: 'CNAME', name: question.name, ttl: 300, data: 'target.zone-b.test' }],
        };
      }
      return { authoritative: true, answers: [{ type: 'A', name: question.name, ttl: 60, data: '192.0.2.99' }] };
    });
    try {
      const result = await createResolver({ servers: [authoritative.server] }).query('alias.zone-a.test', 'A');
      assert.deepEqual(describeChain(result.answers), [
        'alias.zone-a.test 300 CNAME target.zone-b.test',
        'target.zone-b.test 60 A 192.0.2.99',
      ]);
    } finally {
      await authoritative.close();
    }
  });

  it('does not loop on a CNAME loop', async () => {
    const looping = await startFakeDnsServer((question) => ({
      answers: [
        {
          type: 'CNAME',
          name: question.name,
          ttl: 60,
          data: question.name === 'one.test' ? 'two.test' : 'one.test',
        },
      ],
    }));
    try {
      const result = await createResolver({ servers: [looping.server] }).query('one.test', 'A');
      assert.deepEqual(describeChain(result.answers), ['one.test 60 CNAME two.test', 'two.test 60 CNAME one.test']);
      assert.equal(looping.queries.length, 2);
    } finally {
      await looping.close();
    }
  });

  it('gives a CNAME chain one deadline in all, not one per step', async () => {
    // Each name is only a CNAME to the next, answered after 100 ms: the chain never ends.
    const dangling = await startFakeDnsServer((question) => {
      const step = Number(/^dangle(\d+)\.test$/.exec(question.name)?.[1] ?? 0);
      return {
        delayMs: 100,
        answers: [{ type: 'CNAME', name: question.name, ttl: 60, data: `dangle${step + 1}.test` }],
      };
    });
    try {
      const resolver = createResolver({
        servers: [dangling.server],
        timeoutMs: 300,
        deadlineMs: 450,
        cache: noDnsCache,
      });
      const started = performance.now();
      const error = await resolver.query('dangle0.test', 'A').catch((caught: unknown) => caught);
      const elapsed = performance.now() - started;
      assert.ok(error instanceof DnsError, String(error));
      assert.equal(error.code, 'TIMEOUT');
      assert.match(error.message, /CNAME chain was still unresolved at dangle\d\.test/);
      // With a bound per step, the eleven steps allowed would take 1.1 s.
      assert.ok(elapsed < 700, `took ${elapsed} ms`);
    } finally {
      await dangling.close();
    }
  });

  describe('resolveAddresses', () => {
    it('follows CNAMEs to addresses of both families', async () => {
      const resolver = createResolver({ servers: [fake.server] });
      assert.deepEqual(await resolver.resolveAddresses('www.example.test'), [
        { address: '192.0.2.20', family: 4 },
        { address: '192.0.2.21', family: 4 },
        { address: '2001:db8::20', family: 6 },
      ]);
      assert.deepEqual(await resolver.resolveAddresses('www.example.test', 6), [
        { address: '2001:db8::20', family: 6 },
      ]);
    });

    it('returns a literal IP as it is, without asking any server', async () => {
      const resolver = createResolver({ servers: [{ host: '127.0.0.1', port: 9 }], timeoutMs: 10, deadlineMs: 20 });
      assert.deepEqual(await resolver.resolveAddresses('192.0.2.7'), [{ address: '192.0.2.7', family: 4 }]);
      assert.deepEqual(await resolver.resolveAddresses('2001:db8::7', 'any'), [{ address: '2001:db8::7', family: 6 }]);
      assert.deepEqual(await resolver.resolveAddresses('2001:db8::7', 4), []);
    });

    it('is empty for a name without addresses or without existence', async () => {
      const resolver = createResolver({ servers: [fake.server] });
      assert.deepEqual(await resolver.resolveAddresses('v4only.example.test', 6), []);
      assert.deepEqual(await resolver.resolveAddresses('missing.example.test'), []);
    });

    it('throws when one family failed and the other found nothing: not known to have no address (issue 18)', async () => {
      const half = await startFakeDnsServer((question) =>
        question.type === 'A' ? { rcode: 'SERVFAIL' } : { rcode: 'NOERROR', answers: [] },
      );
      try {
        const resolver = createResolver({ servers: [half.server], timeoutMs: 30, deadlineMs: 100 });
        await assert.rejects(
          resolver.resolveAddresses('half.test'),
          (error) => error instanceof DnsError && error.code === 'SERVFAIL',
        );
        assert.deepEqual(await resolver.resolveAddresses('half.test', 6), [], 'the family asked answered: none');
      } finally {
        await half.close();
      }
    });

    it('throws the DnsError when no family could be asked', async () => {
      const silent = await startFakeDnsServer(() => 'drop');
      try {
        const resolver = createResolver({ servers: [silent.server], timeoutMs: 30, deadlineMs: 100 });
        await assert.rejects(
          resolver.resolveAddresses('a.test'),
          (error) => error instanceof DnsError && error.code === 'TIMEOUT',
        );
      } finally {
        await silent.close();
      }
    });
  });

  describe('reverse', () => {
    it('finds the PTR name of IPv4 and IPv6 addresses, and caches it', async () => {
      const resolver = createResolver({ servers: [fake.server] });
      assert.equal(await resolver.reverse('192.0.2.20'), 'host.example.test');
      assert.equal(await resolver.reverse('2001:db8::1'), 'v6.example.test');
      assert.equal(await resolver.reverse('192.0.2.20'), 'host.example.test');
      assert.equal(fake.count('20.2.0.192.in-addr.arpa', 'PTR'), 1);
    });

    it('is null for NXDOMAIN, bad input, and a server that does not answer in time', async () => {
      const silent = await startFakeDnsServer(() => 'drop');
      try {
        assert.equal(await createResolver({ servers: [fake.server] }).reverse('192.0.2.99'), null);
        assert.equal(await createResolver({ servers: [fake.server] }).reverse('not an ip'), null);
        const started = performance.now();
        const slow = createResolver({ servers: [silent.server], timeoutMs: 5000 });
        assert.equal(await slow.reverse('192.0.2.20', { timeoutMs: 100 }), null);
        assert.ok(performance.now() - started < 400);
      } finally {
        await silent.close();
      }
    });
  });

  it('never falls back to a default server', () => {
    assert.throws(() => createResolver({ servers: [] }), /at least one server/);
  });

  it('answers from an IPv6 loopback server too', async (t) => {
    const v6 = await startFakeDnsServer(recordsHandler(ZONE, 'example.test'), '::1').catch(() => null);
    if (v6 === null) {
      t.skip('no ::1 on this machine');
      return;
    }
    try {
      const result = await createResolver({ servers: [v6.server] }).query('v4only.example.test', 'A');
      assert.equal(result.server, `[::1]:${v6.server.port}`);
    } finally {
      await v6.close();
    }
  });
});
