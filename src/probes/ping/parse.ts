/** One line of iputils ping output (stdout or stderr), as the stream needs it. */
export type PingLineEvent =
  | PingHeader
  | PingReply
  | PingTimeout
  | PingUnreachable
  | PingStatistics
  | PingRtt
  | PingError;

/** `PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.` / `PING ::1(::1) 56 data bytes` */
export interface PingHeader {
  type: 'header';
  host: string;
  resolved_ip: string;
}

/** `64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.014 ms`, with ` (DUP!)` on a second reply. */
export interface PingReply {
  type: 'reply';
  seq: number;
  ip: string;
  time_ms: number;
  ttl: number;
  /** Present (true) only when ping marked the line `(DUP!)`; ping does not mark broadcast duplicates. */
  duplicate?: true;
}

/** `no answer yet for icmp_seq=3` (printed because of -O, never for the last request). */
export interface PingTimeout {
  type: 'timeout';
  seq: number;
}

/**
 * `From 192.0.2.1 icmp_seq=1 Destination Host Unreachable`: any ICMP error about a request,
 * including `Time to live exceeded` and `Packet filtered`; `message` is ping's wording.
 */
export interface PingUnreachable {
  type: 'unreachable';
  seq: number;
  from: string;
  message: string;
}

/** `3 packets transmitted, 3 received, +2 duplicates, +1 errors, 0% packet loss, time 2036ms` */
export interface PingStatistics {
  type: 'statistics';
  transmitted: number;
  received: number;
  duplicates: number;
  errors: number;
  loss_percent: number;
}

/** `rtt min/avg/max/mdev = 0.066/0.223/0.489/0.190 ms` */
export interface PingRtt {
  type: 'rtt';
  min_ms: number;
  avg_ms: number;
  max_ms: number;
  mdev_ms: number;
}

/** `ping: no-such-host.invalid: Name or service not known` and any other `ping: ...` complaint. */
export interface PingError {
  type: 'error';
  message: string;
}

const HEADER = /^PING (\S+?) ?\(([^)]+)\)/;
const REPLY = /^\d+ bytes from (.+?): icmp_seq=(\d+) ttl=(\d+) time=(\d+(?:\.\d+)?) ms/;
const TIMEOUT = /^no answer yet for icmp_seq=(\d+)$/;
const ICMP_ERROR = /^From (.+?) icmp_seq=(\d+) (.+)$/;
const STATISTICS = /^(\d+) packets transmitted, (\d+) received(.*?), (\d+(?:\.\d+)?)% packet loss/;
const RTT = /^(?:rtt|round-trip) min\/avg\/max\/(?:mdev|stddev) = ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/;
const TOOL_ERROR = /^ping: (.+)$/;

/**
 * Parses one line (without its newline). Lines that carry nothing for the stream - the blank line,
 * `--- x ping statistics ---`, `WARNING: pinging broadcast address` - give null.
 */
export function parsePingLine(line: string): PingLineEvent | null {
  let m = REPLY.exec(line);
  if (m) {
    const reply: PingReply = {
      type: 'reply',
      seq: Number(m[2]),
      ip: addressOf(m[1] ?? ''),
      time_ms: Number(m[4]),
      ttl: Number(m[3]),
    };
    if (line.endsWith('(DUP!)')) reply.duplicate = true;
    return reply;
  }
  m = TIMEOUT.exec(line);
  if (m) return { type: 'timeout', seq: Number(m[1]) };
  m = ICMP_ERROR.exec(line);
  if (m) return { type: 'unreachable', seq: Number(m[2]), from: addressOf(m[1] ?? ''), message: m[3] ?? '' };
  m = HEADER.exec(line);
  if (m) return { type: 'header', host: m[1] ?? '', resolved_ip: m[2] ?? '' };
  m = STATISTICS.exec(line);
  if (m) {
    const extras = m[3] ?? '';
    return {
      type: 'statistics',
      transmitted: Number(m[1]),
      received: Number(m[2]),
      duplicates: extraCount(extras, 'duplicates'),
      errors: extraCount(extras, 'errors'),
      loss_percent: Number(m[4]),
    };
  }
  m = RTT.exec(line);
  if (m) {
    return { type: 'rtt', min_ms: Number(m[1]), avg_ms: Number(m[2]), max_ms: Number(m[3]), mdev_ms: Number(m[4]) };
  }
  m = TOOL_ERROR.exec(line);
  if (m) return { type: 'error', message: m[1] ?? '' };
  return null;
}

// Without -n ping writes `name (address)`; keep the address.
function addressOf(text: string): string {
  const m = /\(([^)]+)\)$/.exec(text);
  return m?.[1] ?? text;
}

function extraCount(extras: string, label: string): number {
  const m = new RegExp(`\\+(\\d+) ${label}`).exec(extras);
  return m ? Number(m[1]) : 0;
}
