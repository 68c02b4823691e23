import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { dig, findDig, readDig, startZoneApp, TOKEN, ZONE, type ZoneApp } from './zone-app.ts';

/**
 * The zone's DNS listener asked directly with dig, as a resolver asks it: what it answers, what it
 * refuses, and that no answer is much larger than its question unless TC sends the asker to TCP.
 */

const skip = findDig() === null ? 'listener test skipped: dig (apt package bind9-dnsutils) not installed' : false;
if (skip) console.log(`# ${skip}`);

describe('the resolver test zone, asked directly', { skip }, () => {
  let zone: ZoneApp;
  const server = () => ({ host: '127.0.0.1', port: zone.dnsPort });
  before(async () => {
    zone = await startZoneApp();
  });
  after(async () => {
    await zone.app.close();
  });

  it('answers whoami with the address that asked, and the client subnet as a second string', async () => {
    const plain = readDig(await dig(server(), 'TXT', `whoami.${ZONE}`));
    assert.equal(plain.status, 'NOERROR');
    assert.deepEqual(
      plain.answers.map((row) => row.slice(3).join(' ')),
      ['TXT "127.0.0.1"'],
    );
    const withSubnet = readDig(await dig(server(), 'TXT', `WhoAmI.${ZONE.toUpperCase()}`, '+subnet=198.51.100.77/24'));
    assert.deepEqual(
      withSubnet.answers.map((row) => row.slice(4).join(' ')),
      ['"127.0.0.1"', '"edns0-client-subnet 198.51.100.0/24"'],
    );
    const v6 = readDig(await dig(server(), 'TXT', `whoami.${ZONE}`, '+subnet=2001:db8:1234:5678::/56'));
    assert.equal(v6.answers[1]?.slice(4).join(' '), '"edns0-client-subnet 2001:db8:1234:5600::/56"');
  });

  it('is authoritative, never recursive, and refuses every name outside its zone', async () => {
    const own = readDig(await dig(server(), 'A', `${TOKEN}.${ZONE}`));
    assert.ok(own.flags.includes('aa'));
    assert.ok(!own.flags.includes('ra'), 'RA must be clear');
    assert.deepEqual(
      own.answers.map((row) => row[4]),
      ['127.0.0.1'],
    );
    for (const name of ['example.com', `x${ZONE}`, 'test']) {
      const other = readDig(await dig(server(), 'A', name));
      assert.equal(other.status, 'REFUSED', name);
      assert.equal(other.answers.length, 0);
      assert.ok(!other.flags.includes('ra'));
    }
    const chaos = readDig(await dig(server(), 'CH', 'TXT', 'version.bind'));
    assert.equal(chaos.status, 'REFUSED');
  });

  it('answers ANY with one small HINFO (RFC 8482), never with every record of the name', async () => {
    const any = readDig(await dig(server(), 'ANY', ZONE, '+dnssec'));
    assert.equal(any.status, 'NOERROR');
    assert.deepEqual(
      any.answers.map((row) => row[3]),
      ['HINFO', 'RRSIG'],
    );
    assert.equal(any.answers[0]?.slice(4).join(' '), '"RFC8482" ""');
  });

  it('has its apex SOA, NS and DNSKEY, and NXDOMAIN without DO for a name that does not exist', async () => {
    const soa = readDig(await dig(server(), 'SOA', ZONE));
    assert.deepEqual(soa.answers[0]?.slice(3, 5), ['SOA', `ns.${ZONE}.`]);
    const ns = readDig(await dig(server(), 'NS', ZONE));
    assert.deepEqual(
      ns.answers.map((row) => row[4]),
      [`ns.${ZONE}.`],
    );
    const glue = readDig(await dig(server(), 'AAAA', `ns.${ZONE}`));
    assert.deepEqual(
      glue.answers.map((row) => row[4]),
      ['::1'],
    );
    const key = readDig(await dig(server(), 'DNSKEY', ZONE));
    assert.deepEqual(key.answers[0]?.slice(3, 7), ['DNSKEY', '257', '3', '13']);
    const missing = readDig(await dig(server(), 'A', `nothing-here.${ZONE}`));
    assert.equal(missing.status, 'NXDOMAIN');
    assert.equal(missing.authority[0]?.[3], 'SOA');
  });

  it('truncates an answer over 512 bytes without EDNS, and over the advertised size with it', async () => {
    // 15 addresses: an A answer of about 840 bytes (dns-packet does not compress names), more than
    // any the zone gives with a few.
    const addresses = Array.from({ length: 15 }, (_, i) => `192.0.2.${i + 1}`).join(',');
    const big = await startZoneApp({ RESOLVER_TEST_ADDRESSES: addresses });
    try {
      const at = { host: '127.0.0.1', port: big.dnsPort };
      const plain = readDig(await dig(at, 'A', `${TOKEN}.${ZONE}`, '+noedns', '+ignore'));
      assert.ok(plain.flags.includes('tc'), 'TC without EDNS');
      assert.equal(plain.answers.length, 0);
      assert.ok(plain.size <= 512);
      const small = readDig(await dig(at, 'A', `${TOKEN}.${ZONE}`, '+bufsize=600', '+ignore'));
      assert.ok(small.flags.includes('tc'), 'TC over the advertised 600 bytes');
      const edns = readDig(await dig(at, 'A', `${TOKEN}.${ZONE}`, '+bufsize=1232', '+ignore'));
      assert.ok(!edns.flags.includes('tc'));
      assert.equal(edns.answers.length, 15);
      const huge = readDig(await dig(at, 'A', `${TOKEN}.${ZONE}`, '+bufsize=65000', '+dnssec', '+ignore'));
      assert.ok(huge.size <= 1232, `an advertised 65000 is capped at 1232, got ${huge.size}`);
      // dig retries over TCP on TC: the whole answer arrives there.
      const tcp = readDig(await dig(at, 'A', `${TOKEN}.${ZONE}`, '+noedns'));
      assert.equal(tcp.answers.length, 15);
    } finally {
      await big.app.close();
    }
  });

  it('listens on IPv4 and IPv6 at once with the default address (::)', async () => {
    const dual = await startZoneApp({ RESOLVER_TEST_DNS_HOST: '' });
    try {
      for (const host of ['127.0.0.1', '::1']) {
        const answer = readDig(await dig({ host, port: dual.dnsPort }, 'TXT', `whoami.${ZONE}`));
        assert.deepEqual(
          answer.answers.map((row) => row[4]),
          [`"${host}"`],
          host,
        );
      }
    } finally {
      await dual.app.close();
    }
  });

  it('stops the start when its port is taken, naming why', async () => {
    const taken = startZoneApp({ RESOLVER_TEST_DNS_PORT: String(zone.dnsPort) }).then(
      async (started) => {
        await started.app.close();
        return 'started';
      },
      (error: Error) => error.message,
    );
    assert.match(await taken, /EADDRINUSE/);
  });

  it('answers over TCP, several queries on one connection', async () => {
    const output = await dig(server(), '+tcp', '+keepopen', `whoami.${ZONE}`, 'TXT', `ok-${TOKEN}.${ZONE}`, 'A');
    assert.match(output, /\(TCP\)/);
    assert.match(output, /whoami\.probe\.test\.\s+0\s+IN\s+TXT\s+"127\.0\.0\.1"/);
    assert.match(output, /ok-abcdefghijklmnopqrstuvw2\.probe\.test\.\s+60\s+IN\s+A\s+127\.0\.0\.1/);
  });

  it('keeps every answer within 10 times its question over UDP (no amplification)', async () => {
    const ratios: string[] = [];
    for (const [type, name] of [
      ['DNSKEY', ZONE],
      ['SOA', ZONE],
      ['NS', ZONE],
      ['ANY', ZONE],
      ['TXT', `whoami.${ZONE}`],
      ['A', `${TOKEN}.${ZONE}`],
      ['AAAA', `bad-${TOKEN}.${ZONE}`],
      ['MX', `${TOKEN}.${ZONE}`],
      ['A', `a.${ZONE}`],
    ]) {
      const output = await dig(server(), type as string, name as string, '+dnssec', '+qr');
      const sent = Number(/QUERY SIZE: (\d+)/.exec(output)?.[1]);
      const { size } = readDig(output);
      ratios.push(`${type} ${name}: ${size}/${sent}`);
      assert.ok(size / sent < 10, `${type} ${name}: ${size} bytes for a question of ${sent}`);
    }
    console.log(`# answer/question bytes with DO: ${ratios.join('; ')}`);
  });

  it('drops garbage and answers on; a query it cannot read gets FORMERR, a response nothing', async () => {
    const socket = createSocket('udp4');
    const replies: Buffer[] = [];
    socket.on('message', (message) => replies.push(message));
    socket.bind(0, '127.0.0.1');
    await once(socket, 'listening');
    const send = (bytes: Buffer) =>
      new Promise<void>((resolve) => socket.send(bytes, zone.dnsPort, '127.0.0.1', () => resolve()));
    await send(Buffer.from([1, 2, 3]));
    // A response (QR set): answering it could loop between two servers.
    await send(Buffer.from('1234800000010000000000000377777700000100', 'hex'));
    // A header claiming a question, then a name that runs past the end.
    await send(Buffer.from('abcd0100000100000000000003777777', 'hex'));
    await send(Buffer.alloc(600, 0xff));
    // Not a query (opcode 8) and unreadable after the header: 12 bytes back for 600.
    await send(Buffer.alloc(600, 0x41));
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.close();
    assert.equal(replies.length, 2, 'only the two packets with a query header are answered');
    assert.equal(replies[0]?.readUInt16BE(0), 0xabcd);
    assert.equal((replies[0]?.readUInt16BE(2) ?? 0) & 0xf, 1, 'FORMERR');
    assert.deepEqual(
      replies.map((reply) => reply.length),
      [12, 12],
    );
    const still = readDig(await dig(server(), 'TXT', `whoami.${ZONE}`));
    assert.equal(still.status, 'NOERROR');
  });
});
