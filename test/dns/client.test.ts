import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { createDnsClient, type DnsClientOptions } from '../../src/dns/client.ts';
import { DnsError, dnsFailureInWords } from '../../src/dns/errors.ts';
import { formatRecordValue } from '../../src/dns/format.ts';
import { formatServer } from '../../src/dns/servers.ts';
import { createSocketTransport } from '../../src/dns/transport.ts';
import {
  type FakeDnsServer,
  type FakeHandler,
  recordsHandler,
  soaRecord,
  startFakeDnsServer,
} from '../support/fake-dns-server.ts';

const ZONE: Answer[] = [
  { type: 'A', name: 'example.test', ttl: 300, data: '192.0.2.10' },
  { type: 'AAAA', name: 'example.test', ttl: 300, data: '2001:db8::10' },
  { type: 'MX', name: 'example.test', ttl: 3600, data: { preference: 10, exchange: 'mail.example.test' } },
  { type: 'MX', name: 'example.test', ttl: 3600, data: { preference: 20, exchange: 'MX2.Example.test' } },
  { type: 'NS', name: 'example.test', ttl: 86400, data: 'ns1.example.test' },
  { type: 'TXT', name: 'example.test', ttl: 60, data: ['v=spf1 ', '-all'] },
  soaRecord('example.test'),
  {
    type: 'SRV',
    name: '_sip._tcp.example.test',
    ttl: 60,
    data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.test' },
  },
  { type: 'CAA', name: 'example.test', ttl: 60, data: { flags: 0, tag: 'issue', value: 'ca.example' } },
  { type: 'PTR', name: '10.2.0.192.in-addr.arpa', ttl: 60, data: 'example.test' },
  { type: 'CNAME', name: 'www.example.test', ttl: 600, data: 'web.example.test' },
  { type: 'CNAME', name: 'web.example.test', ttl: 900, data: 'host.example.test' },
  { type: 'A', name: 'host.example.test', ttl: 120, data: '192.0.2.20' },
  {
    type: 'DS',
    name: 'example.test',
    ttl: 60,
    data: { keyTag: 1, algorithm: 13, digestType: 2, digest: Buffer.from('00ff', 'hex') },
  },
  {
    type: 'TLSA',
    name: '_443._tcp.example.test',
    ttl: 60,
    data: { usage: 3, selector: 1, matchingType: 1, certificate: Buffer.from('aa', 'hex') },
  },
];

const fast: Partial<DnsClientOptions> = { timing: { tryTimeoutMs: 150, deadlineMs: 2000 } };

describe('DNS client against the fake server', () => {
  let zone: FakeDnsServer;
  before(async () => {
    zone = await startFakeDnsServer(recordsHandler(ZONE));
  });
  after(() => zone.close());

  const types: Array<[string, string, string[]]> = [
    ['example.test', 'A', ['192.0.2.10']],
    ['example.test', 'AAAA', ['2001:db8::10']],
    ['example.test', 'MX', ['10 mail.example.test', '20 MX2.Example.test']],
    ['example.test', 'NS', ['ns1.example.test']],
    ['example.test', 'TXT', ['v=spf1 -all']],
    ['example.test', 'SOA', ['ns1.example.test hostmaster.example.test 2024010101 7200 3600 1209600 60']],
    ['_sip._tcp.example.test', 'SRV', ['10 5 5060 sip.example.test']],
    ['example.test', 'CAA', ['0 issue "ca.example"']],
    ['10.2.0.192.in-addr.arpa', 'PTR', ['example.test']],
    ['www.example.test', 'CNAME', ['web.example.test']],
    ['example.test', 'DS', ['1 13 2 00FF']],
    ['_443._tcp.example.test', 'TLSA', ['3 1 1 AA']],
  ];
  for (const [name, type, expected] of types) {
    it(`decodes ${type}`, async () => {
      const client = createDnsClient({ servers: [zone.server] });
      const response = await client.exchange({ name, type });
      assert.equal(response.rcode, 'NOERROR');
      assert.deepEqual(response.answers.map(formatRecordValue), expected);
      assert.ok(response.answers.every((record) => record.type === type && record.class === 'IN'));
    });
  }

  it('returns the answer section of a CNAME chain in order, with TTLs', async () => {
    const response = await createDnsClient({ servers: [zone.server] }).exchange({
      name: 'www.example.test',
      type: 'A',
    });
    assert.deepEqual(
      response.answers.map((record) => [record.name, record.type, record.ttl, formatRecordValue(record)]),
      [
        ['www.example.test', 'CNAME', 600, 'web.example.test'],
        ['web.example.test', 'CNAME', 900, 'host.example.test'],
        ['host.example.test', 'A', 120, '192.0.2.20'],
      ],
    );
    assert.equal(response.server, formatServer(zone.server));
    assert.equal(response.transport, 'udp');
  });

  it('tells NXDOMAIN from NOERROR with no data, each with the SOA', async () => {
    const client = createDnsClient({ servers: [zone.server] });
    const missing = await client.exchange({ name: 'missing.example.test', type: 'A' });
    const noData = await client.exchange({ name: 'host.example.test', type: 'MX' });
    assert.equal(missing.rcode, 'NXDOMAIN');
    assert.equal(noData.rcode, 'NOERROR');
    for (const response of [missing, noData]) {
      assert.deepEqual(response.answers, []);
      assert.equal(response.authority[0]?.type, 'SOA');
    }
  });

  it('sends EDNS0 and the ids of the injected generator', async () => {
    const before = zone.queries.length;
    await createDnsClient({ servers: [zone.server], nextId: () => 4242 }).exchange({ name: 'example.test', type: 'A' });
    assert.deepEqual(zone.queries.slice(before), [
      { name: 'example.test', type: 'A', transport: 'udp', id: 4242, hasEdns: true },
    ]);
  });
});

describe('DNS client failures and retries', () => {
  const servers: FakeDnsServer[] = [];
  const start = async (handler: FakeHandler) => {
    const server = await startFakeDnsServer(handler);
    servers.push(server);
    return server;
  };
  after(() => Promise.all(servers.map((server) => server.close())));
  const good = recordsHandler([{ type: 'A', name: 'a.test', ttl: 60, data: '192.0.2.1' }]);

  for (const rcode of ['SERVFAIL', 'REFUSED'] as const) {
    it(`moves on to the next server after ${rcode}`, async () => {
      const failing = await start(() => ({ rcode }));
      const working = await start(good);
      const response = await createDnsClient({ servers: [failing.server, working.server], ...fast }).exchange({
        name: 'a.test',
        type: 'A',
      });
      assert.equal(response.server, formatServer(working.server));
      assert.equal(failing.count(), 1);
    });

    it(`gives up with ${rcode}, naming every server, without asking one twice`, async () => {
      const first = await start(() => ({ rcode }));
      const second = await start(() => ({ rcode }));
      const client = createDnsClient({ servers: [first.server, second.server], ...fast });
      const error = await client.exchange({ name: 'a.test', type: 'A' }).catch((caught: unknown) => caught);
      assert.ok(error instanceof DnsError);
      assert.equal(error.code, rcode);
      assert.deepEqual(error.servers, [formatServer(first.server), formatServer(second.server)]);
      assert.equal(first.count() + second.count(), 2);
    });
  }

  it('retries a timed-out query on the second server', async () => {
    const silent = await start(() => 'drop');
    const working = await start(good);
    const response = await createDnsClient({ servers: [silent.server, working.server], ...fast }).exchange({
      name: 'a.test',
      type: 'A',
    });
    assert.equal(response.server, formatServer(working.server));
    assert.equal(silent.count(), 1);
  });

  it('tries each server twice, in turn, then fails with TIMEOUT', async () => {
    const first = await start(() => 'drop');
    const second = await start(() => 'drop');
    const client = createDnsClient({
      servers: [first.server, second.server],
      timing: { tryTimeoutMs: 50, deadlineMs: 5000 },
    });
    const error = await client.exchange({ name: 'a.test', type: 'A' }).catch((caught: unknown) => caught);
    assert.ok(error instanceof DnsError);
    assert.equal(error.code, 'TIMEOUT');
    assert.deepEqual(
      error.attempts.map((attempt) => attempt.server),
      [first.server, second.server, first.server, second.server].map(formatServer),
    );
  });

  it('stops at the overall deadline', async () => {
    const silent = await start(() => 'drop');
    const started = performance.now();
    const client = createDnsClient({
      servers: [silent.server],
      triesPerServer: 10,
      timing: { tryTimeoutMs: 100, deadlineMs: 250 },
    });
    const error = await client.exchange({ name: 'a.test', type: 'A' }).catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;
    assert.ok(error instanceof DnsError && error.code === 'TIMEOUT');
    assert.ok(elapsed < 400, `took ${elapsed} ms`);
    assert.equal(silent.count(), 3);
  });

  it('reports a closed port (ICMP port unreachable) as UNREACHABLE and moves on', async () => {
    const closed = await startFakeDnsServer(good);
    await closed.close();
    const working = await start(good);
    const response = await createDnsClient({ servers: [closed.server, working.server], ...fast }).exchange({
      name: 'a.test',
      type: 'A',
    });
    assert.equal(response.server, formatServer(working.server));
    const error = await createDnsClient({ servers: [closed.server], ...fast })
      .exchange({ name: 'a.test', type: 'A' })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof DnsError);
    assert.equal(error.code, 'UNREACHABLE');
  });

  it('retries over TCP when the UDP answer is truncated', async () => {
    const big = await start((question) => ({
      truncateOverUdp: true,
      answers: [{ type: 'TXT', name: question.name, ttl: 60, data: ['x'.repeat(200), 'y'.repeat(200)] }],
    }));
    const response = await createDnsClient({ servers: [big.server], ...fast }).exchange({
      name: 'big.test',
      type: 'TXT',
    });
    assert.equal(response.transport, 'tcp');
    assert.equal(
      formatRecordValue(response.answers[0] ?? assert.fail('no answer')),
      `${'x'.repeat(200)}${'y'.repeat(200)}`,
    );
    assert.deepEqual(
      big.queries.map((query) => query.transport),
      ['udp', 'tcp'],
    );
  });

  it("a truncated answer's TCP retry gets what is left of the deadline, not a whole try", async () => {
    // UDP answers late and truncated; TCP never answers.
    const slow = await start((question, context) =>
      context.transport === 'tcp'
        ? 'drop'
        : {
            delayMs: 300,
            truncateOverUdp: true,
            answers: [{ type: 'A', name: question.name, ttl: 60, data: '192.0.2.1' }],
          },
    );
    const client = createDnsClient({
      servers: [slow.server],
      triesPerServer: 1,
      timing: { tryTimeoutMs: 500, deadlineMs: 600 },
    });
    const started = performance.now();
    const error = await client.exchange({ name: 'a.test', type: 'A' }).catch((caught: unknown) => caught);
    const elapsed = performance.now() - started;
    assert.ok(error instanceof DnsError && error.code === 'TIMEOUT', String(error));
    // 300 ms for UDP, then what is left (300 ms) for TCP; a whole try again would end at 800 ms.
    assert.ok(elapsed < 720, `took ${elapsed} ms`);
  });

  it('a reply still truncated over TCP is not an answer, whatever its rcode', async () => {
    const broken = await start((question) => ({
      truncateOverUdp: true,
      truncateOverTcp: true,
      answers: [{ type: 'A', name: question.name, ttl: 60, data: '192.0.2.1' }],
    }));
    const error = await createDnsClient({ servers: [broken.server], ...fast })
      .exchange({ name: 'a.test', type: 'A' })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof DnsError);
    assert.equal(error.code, 'BADRESPONSE');
    assert.equal(error.attempts[0]?.detail, 'truncated over TCP');
  });

  it('rejects a TCP answer larger than the bound', async () => {
    const huge = await start((question) => ({
      truncateOverUdp: true,
      answers: Array.from({ length: 20 }, () => ({
        type: 'TXT' as const,
        name: question.name,
        ttl: 60,
        data: 'z'.repeat(200),
      })),
    }));
    const client = createDnsClient({
      servers: [huge.server],
      transport: createSocketTransport({ maxTcpResponseBytes: 2048 }),
      ...fast,
    });
    const error = await client.exchange({ name: 'huge.test', type: 'TXT' }).catch((caught: unknown) => caught);
    assert.ok(error instanceof DnsError);
    assert.equal(error.code, 'BADRESPONSE');
    assert.match(error.attempts[0]?.detail ?? '', /exceeds 2048/);
  });

  const spoofed: Answer[] = [{ type: 'A', name: 'a.test', ttl: 60, data: '203.0.113.66' }];
  for (const kind of ['wrong-id', 'wrong-question', 'other-port'] as const) {
    it(`ignores a ${kind} answer sent first and waits for the right one`, async () => {
      const tricky = await start((question) => ({
        answers: [{ type: 'A', name: question.name, ttl: 60, data: '192.0.2.1' }],
        decoys: [{ kind, answers: spoofed }],
        delayMs: 20,
      }));
      const response = await createDnsClient({ servers: [tricky.server], ...fast }).exchange({
        name: 'a.test',
        type: 'A',
      });
      assert.deepEqual(response.answers.map(formatRecordValue), ['192.0.2.1']);
    });
  }

  it('says the server sent no usable answer when only a mismatched one came, not that it timed out', async () => {
    const decoyOnly = await start((question) => ({
      answers: [{ type: 'A', name: question.name, ttl: 60, data: '192.0.2.1' }],
      decoys: [{ kind: 'wrong-id' }],
      delayMs: 10_000,
    }));
    const client = createDnsClient({ servers: [decoyOnly.server], triesPerServer: 1, timing: { tryTimeoutMs: 100 } });
    const error = await client.exchange({ name: 'a.test', type: 'A' }).catch((caught: unknown) => caught);
    assert.ok(error instanceof DnsError);
    assert.equal(error.code, 'BADRESPONSE');
    assert.match(error.attempts[0]?.detail ?? '', /1 reply in 100 ms, none a valid answer/);
    assert.match(dnsFailureInWords(error), /no usable answer/);
  });

  it('still times out when nothing comes at all', async () => {
    const silent = await start(() => ({ delayMs: 10_000 }));
    const client = createDnsClient({ servers: [silent.server], triesPerServer: 1, timing: { tryTimeoutMs: 100 } });
    const error = await client.exchange({ name: 'a.test', type: 'A' }).catch((caught: unknown) => caught);
    assert.ok(error instanceof DnsError);
    assert.equal(error.code, 'TIMEOUT');
    assert.match(dnsFailureInWords(error), /answered in time/);
  });
});
