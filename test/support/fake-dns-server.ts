import dgram from 'node:dgram';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import dnsPacket, { type Answer, type DecodedPacket, type Question } from 'dns-packet';
import type { DnsServer } from '../../src/dns/servers.ts';

/**
 * An in-process DNS server on loopback, UDP and TCP on one random port, whose every reply is
 * decided by a handler: so tests show the resolver's behaviour on answers a real server would
 * rarely give (wrong ids, truncation, delays, SERVFAIL).
 */

export type FakeTransport = 'udp' | 'tcp';

/** A datagram sent before the real reply, to prove the client ignores it. UDP only. */
export type FakeDecoy = {
  kind: 'wrong-id' | 'wrong-question' | 'other-port';
  /** What the decoy claims; defaults to the real reply's answers. */
  answers?: Answer[];
};

export type FakeReply = {
  rcode?: string;
  answers?: Answer[];
  authorities?: Answer[];
  additionals?: Answer[];
  authoritative?: boolean;
  /** Sets the AD (Authenticated Data) bit, as a validating resolver does for a signed answer. */
  authenticData?: boolean;
  /** Over UDP: the TC bit and empty sections; over TCP: the full reply. */
  truncateOverUdp?: boolean;
  /** Over TCP: the full reply, but with the TC bit set all the same (a broken server). */
  truncateOverTcp?: boolean;
  /** Wait before the real reply (decoys go first, at once). */
  delayMs?: number;
  decoys?: FakeDecoy[];
};

export type FakeContext = { transport: FakeTransport; id: number };

/** `'drop'` sends nothing, as a lost packet or a dead server. */
export type FakeHandler = (
  question: Question,
  context: FakeContext,
) => FakeReply | 'drop' | Promise<FakeReply | 'drop'>;

export type ReceivedQuery = { name: string; type: string; transport: FakeTransport; id: number; hasEdns: boolean };

export type FakeDnsServer = {
  readonly server: DnsServer;
  readonly queries: ReceivedQuery[];
  /** How many queries asked for this name and type (name case-insensitive). */
  count(name?: string, type?: string): number;
  close(): Promise<void>;
};

export async function startFakeDnsServer(handler: FakeHandler, host = '127.0.0.1'): Promise<FakeDnsServer> {
  // The UDP port is chosen by the OS; TCP on the same number may be taken, so try a few times.
  for (let attempt = 0; ; attempt++) {
    try {
      return await listenOnce(handler, host);
    } catch (error) {
      if (attempt >= 4) throw error;
    }
  }
}

async function listenOnce(handler: FakeHandler, host: string): Promise<FakeDnsServer> {
  const family = net.isIPv6(host) ? 'udp6' : 'udp4';
  const udp = dgram.createSocket(family);
  const decoySocket = dgram.createSocket(family);
  const tcp = net.createServer();
  const connections = new Set<net.Socket>();
  const queries: ReceivedQuery[] = [];
  // Delayed replies wait on this, so close() ends them instead of leaving timers behind.
  const closing = new AbortController();
  const pause = (ms: number) => sleep(ms, true, { signal: closing.signal }).catch(() => false);

  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, host, () => resolve());
  });
  const port = udp.address().port;
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, host, () => resolve());
    });
  } catch (error) {
    udp.close();
    throw error;
  }
  await new Promise<void>((resolve) => decoySocket.bind(0, host, () => resolve()));

  const record = (query: DecodedPacket, transport: FakeTransport) => {
    const question = query.questions?.[0];
    queries.push({
      name: question?.name ?? '',
      type: question?.type ?? '',
      transport,
      id: query.id ?? 0,
      hasEdns: (query.additionals ?? []).some((extra) => extra.type === 'OPT'),
    });
  };

  udp.on('message', async (message, remote) => {
    const query = decodeOrNull(message);
    const question = query?.questions?.[0];
    if (query === null || question === undefined) return;
    record(query, 'udp');
    const reply = await handler(question, { transport: 'udp', id: query.id ?? 0 });
    if (reply === 'drop') return;
    const send = (socket: dgram.Socket, bytes: Buffer) => {
      if (!closing.signal.aborted) socket.send(bytes, remote.port, remote.address);
    };
    for (const decoy of reply.decoys ?? []) {
      const decoyReply = { ...reply, answers: decoy.answers ?? reply.answers };
      if (decoy.kind === 'wrong-id')
        send(udp, encodeReply(query, decoyReply, 'udp', { id: ((query.id ?? 0) + 1) & 0xffff }));
      if (decoy.kind === 'wrong-question') {
        const other = { ...question, name: `other-${question.name}` };
        send(udp, encodeReply(query, decoyReply, 'udp', { question: other }));
      }
      if (decoy.kind === 'other-port') send(decoySocket, encodeReply(query, decoyReply, 'udp'));
    }
    if (reply.delayMs && !(await pause(reply.delayMs))) return;
    send(udp, encodeReply(query, reply, 'udp'));
  });
  udp.on('error', () => {});

  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    socket.on('data', async (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        const query = decodeOrNull(message);
        const question = query?.questions?.[0];
        if (query === null || question === undefined) continue;
        record(query, 'tcp');
        const reply = await handler(question, { transport: 'tcp', id: query.id ?? 0 });
        if (reply === 'drop') continue;
        if (reply.delayMs && !(await pause(reply.delayMs))) return;
        const bytes = encodeReply(query, reply, 'tcp');
        const length = Buffer.alloc(2);
        length.writeUInt16BE(bytes.length);
        if (!socket.destroyed) socket.write(Buffer.concat([length, bytes]));
      }
    });
  });

  return {
    server: { host, port },
    queries,
    count: (name, type) =>
      queries.filter(
        (query) =>
          (name === undefined || query.name.toLowerCase() === name.toLowerCase()) &&
          (type === undefined || query.type === type),
      ).length,
    close: async () => {
      closing.abort();
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => decoySocket.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

function decodeOrNull(bytes: Buffer): DecodedPacket | null {
  try {
    return dnsPacket.decode(bytes);
  } catch {
    return null;
  }
}

const RCODE_NUMBERS: Record<string, number> = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
};

function encodeReply(
  query: DecodedPacket,
  reply: FakeReply,
  transport: FakeTransport,
  overrides: { id?: number; question?: Question } = {},
): Buffer {
  const truncated = transport === 'udp' && reply.truncateOverUdp === true;
  const flaggedOverTcp = transport === 'tcp' && reply.truncateOverTcp === true;
  const rcode = RCODE_NUMBERS[reply.rcode ?? 'NOERROR'];
  if (rcode === undefined) throw new Error(`fake DNS server: unknown rcode ${reply.rcode}`);
  let flags = rcode | dnsPacket.RECURSION_AVAILABLE | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED);
  if (truncated || flaggedOverTcp) flags |= dnsPacket.TRUNCATED_RESPONSE;
  if (reply.authoritative) flags |= dnsPacket.AUTHORITATIVE_ANSWER;
  if (reply.authenticData) flags |= dnsPacket.AUTHENTIC_DATA;
  const question = overrides.question ?? query.questions?.[0];
  return dnsPacket.encode({
    type: 'response',
    id: overrides.id ?? query.id ?? 0,
    flags,
    questions: question ? [question] : [],
    answers: truncated ? [] : (reply.answers ?? []),
    authorities: truncated ? [] : (reply.authorities ?? []),
    additionals: truncated ? [] : (reply.additionals ?? []),
  });
}

/** An SOA for negative answers in tests: ttl and minimum decide how long they are cached. */
export function soaRecord(zone: string, ttl = 3600, minimum = 60): Answer {
  return {
    type: 'SOA',
    name: zone,
    ttl,
    class: 'IN',
    data: {
      mname: `ns1.${zone}`,
      rname: `hostmaster.${zone}`,
      serial: 2024010101,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minimum,
    },
  };
}

/**
 * A handler that answers like a recursive server over a fixed set of records: follows CNAMEs
 * within the set, and gives NXDOMAIN (name unknown) or NOERROR with no data (name known, other
 * type), each with the SOA of `zone` in the authority section.
 */
export function recordsHandler(records: Answer[], zone = 'example.test'): FakeHandler {
  const byName = (name: string) => records.filter((answer) => answer.name.toLowerCase() === name.toLowerCase());
  return (question) => {
    const answers: Answer[] = [];
    let name = question.name;
    for (let hop = 0; hop < 10; hop++) {
      const owned = byName(name);
      const matching = owned.filter((answer) => answer.type === question.type);
      if (matching.length > 0 || question.type === 'CNAME') {
        answers.push(...matching);
        break;
      }
      const cname = owned.find((answer) => answer.type === 'CNAME');
      if (cname === undefined || cname.type !== 'CNAME') break;
      answers.push(cname);
      name = cname.data;
    }
    if (answers.length > 0) return { answers };
    const known = byName(name).length > 0;
    return { rcode: known ? 'NOERROR' : 'NXDOMAIN', authorities: [soaRecord(zone)] };
  };
}
