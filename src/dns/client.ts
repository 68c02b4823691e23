import { randomInt } from 'node:crypto';
import { type DnsAttempt, DnsError, type DnsErrorCode } from './errors.ts';
import { checkReply, type DnsQuestion, type DnsReply, encodeQuery, type ReplyFlags } from './message.ts';
import type { DnsRecord } from './records.ts';
import { type DnsServer, formatServer } from './servers.ts';
import { createSocketTransport, type DnsTransport, type ExchangeOutcome } from './transport.ts';

/** The answer to one question from one server. Only NOERROR and NXDOMAIN are answers. */
export type DnsResponse = {
  rcode: 'NOERROR' | 'NXDOMAIN';
  answers: DnsRecord[];
  authority: DnsRecord[];
  /** The reply's RD, RA, AD and CD bits. */
  flags: ReplyFlags;
  /** The server that answered, as `host:port` / `[v6]:port`. */
  server: string;
  transport: 'udp' | 'tcp';
};

export type DnsTiming = {
  /** How long one try waits for an answer. */
  tryTimeoutMs: number;
  /** How long the whole exchange, every retry included, may take. */
  deadlineMs: number;
};

export type DnsClientOptions = {
  /** Required, with no default, so that nothing is ever sent to a server the caller did not name. */
  servers: readonly DnsServer[];
  timing?: Partial<DnsTiming>;
  /** Tries per server; servers are tried in turn (s1, s2, s1, s2). */
  triesPerServer?: number;
  /** Query ids: unpredictable by default, as a defence against spoofed answers. */
  nextId?: () => number;
  transport?: DnsTransport;
  now?: () => number;
};

export type DnsClient = {
  exchange(question: DnsQuestion, timing?: Partial<DnsTiming>): Promise<DnsResponse>;
};

const DEFAULT_TIMING: DnsTiming = { tryTimeoutMs: 2000, deadlineMs: 6000 };

/** The timing in force: the defaults, then each layer (the client's, then a query's) over them. */
export function timingOf(...layers: (Partial<DnsTiming> | undefined)[]): DnsTiming {
  return Object.assign({}, DEFAULT_TIMING, ...layers);
}

// A try shorter than this cannot get an answer from a real server: the deadline has come.
const MIN_TRY_MS = 10;

// Rcodes that say this server will not answer this question: ask the next one instead.
const SERVER_FAILURES = new Set<string>(['SERVFAIL', 'REFUSED', 'FORMERR', 'NOTIMP']);

export function createDnsClient(options: DnsClientOptions): DnsClient {
  if (options.servers.length === 0) throw new Error('createDnsClient needs at least one server');
  const servers = [...options.servers];
  const triesPerServer = options.triesPerServer ?? 2;
  const nextId = options.nextId ?? (() => randomInt(0, 0x10000));
  const transport = options.transport ?? createSocketTransport();
  const now = options.now ?? (() => performance.now());

  async function exchange(question: DnsQuestion, timingOverride: Partial<DnsTiming> = {}): Promise<DnsResponse> {
    const timing = timingOf(options.timing, timingOverride);
    const deadline = now() + timing.deadlineMs;
    const attempts: DnsAttempt[] = [];
    // A server that refused, failed or is unreachable is not asked again for this question.
    const givenUp = new Set<DnsServer>();
    let outOfTime = false;

    for (let round = 0; round < triesPerServer; round++) {
      for (const server of servers) {
        if (givenUp.has(server)) continue;
        const remainingMs = deadline - now();
        if (remainingMs < MIN_TRY_MS) {
          outOfTime = true;
          break;
        }
        const timeoutMs = Math.min(timing.tryTimeoutMs, remainingMs);
        const result = await askServer(server, question, timeoutMs, deadline);
        if ('rcode' in result) return result;
        attempts.push(result);
        if (result.code !== 'TIMEOUT') givenUp.add(server);
      }
    }
    const last = attempts.at(-1);
    const code: DnsErrorCode = outOfTime || last === undefined ? 'TIMEOUT' : last.code;
    const tried = attempts.map((attempt) => `${attempt.server} ${attempt.code}`).join(', ');
    throw new DnsError(code, `${code} for ${question.name} ${question.type} (${tried || 'no try made'})`, attempts);
  }

  async function askServer(server: DnsServer, question: DnsQuestion, timeoutMs: number, deadline: number) {
    const name = formatServer(server);
    const udp = await exchangeOnce('udp', server, question, timeoutMs);
    if (!udp.ok) return { server: name, transport: 'udp', code: udp.code, detail: udp.detail } satisfies DnsAttempt;
    let reply = udp.value;
    let via: 'udp' | 'tcp' = 'udp';
    if (reply.truncated) {
      // The TCP retry of a truncated answer is part of the same try: it gets what is left before the
      // deadline, not a whole try's time again (a slow UDP answer followed by a silent TCP port
      // took 7.8 s against a 6 s bound).
      const tcpMs = Math.min(timeoutMs, deadline - now());
      if (tcpMs < MIN_TRY_MS) {
        return { server: name, transport: 'tcp', code: 'TIMEOUT', detail: 'no time left for TCP' } satisfies DnsAttempt;
      }
      const tcp = await exchangeOnce('tcp', server, question, tcpMs);
      if (!tcp.ok) return { server: name, transport: 'tcp', code: tcp.code, detail: tcp.detail } satisfies DnsAttempt;
      reply = tcp.value;
      via = 'tcp';
    }
    return toResponse(reply, name, via);
  }

  function exchangeOnce(
    kind: 'udp' | 'tcp',
    server: DnsServer,
    question: DnsQuestion,
    timeoutMs: number,
  ): Promise<ExchangeOutcome<DnsReply>> {
    const id = nextId();
    const accept = (bytes: Buffer) => {
      const check = checkReply(bytes, id, question);
      return check.kind === 'reply' ? check.reply : undefined;
    };
    return transport[kind]({ server, query: encodeQuery(id, question), timeoutMs, accept });
  }

  return { exchange };
}

function toResponse(reply: DnsReply, server: string, transport: 'udp' | 'tcp'): DnsResponse | DnsAttempt {
  // A truncated UDP reply has been asked again over TCP before this; truncated over TCP too means
  // the records are incomplete, whatever the rcode says.
  if (reply.truncated) return { server, transport, code: 'BADRESPONSE', detail: 'truncated over TCP' };
  if (reply.rcode === 'NOERROR' || reply.rcode === 'NXDOMAIN') {
    const { rcode, answers, authority, flags } = reply;
    return { rcode, answers, authority, flags, server, transport };
  }
  if (SERVER_FAILURES.has(reply.rcode)) {
    return { server, transport, code: reply.rcode as DnsErrorCode, flags: reply.flags };
  }
  return { server, transport, code: 'BADRESPONSE', detail: `rcode ${reply.rcode}` };
}
