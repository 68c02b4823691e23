/** One line of traceroute output (stdout or stderr). */
export type TracerouteLine = TracerouteHeader | TracerouteHop | TracerouteError;

/** `traceroute to 203.0.113.2 (203.0.113.2), 30 hops max, 60 byte packets` */
export interface TracerouteHeader {
  type: 'header';
  host: string;
  resolved_ip: string;
  max_hops: number;
}

/** One probe of a hop line: `192.0.2.1  0.041 ms`, `0.008 ms !H` (same address as before) or `*`. */
export interface TracerouteProbe {
  ip: string | null;
  rtt_ms: number | null;
  annotation?: string;
}

/**
 * ` 3  203.0.113.2  0.023 ms` or ` 2  *`. ip/rtt_ms/annotation are those of the first probe that was
 * answered (all null when none was), which is the whole line with the default one probe per hop.
 * `probes` lists every probe, and is present only when the line has more than one.
 */
export interface TracerouteHop {
  type: 'hop';
  hop: number;
  ip: string | null;
  rtt_ms: number | null;
  /** `!H` host, `!N` network, `!P` protocol unreachable, `!X` prohibited, `!F-<mtu>`, `!<code>`... */
  annotation?: string;
  probes?: TracerouteProbe[];
}

/** `no-such-host.invalid: Name or service not known` (the resolver's message, from stderr). */
export interface TracerouteError {
  type: 'error';
  message: string;
}

const HEADER = /^traceroute to (\S+) \(([^)]+)\), (\d+) hops max/;
const HOP = /^\s*(\d+)\s+(.*)$/;
const RTT = /^\d+(?:\.\d+)?$/;
const PRIVILEGES_ERROR = 'You do not have enough privileges to use this traceroute method.';
// gai_strerror() texts traceroute prints as `<host>: <message>` when it cannot resolve its argument.
const RESOLVER_ERROR =
  /^\S+: (?:Name or service not known|Temporary failure in name resolution|No address associated with hostname|Address family for hostname not supported|Non-recoverable failure in name resolution)$/;

/**
 * Parses one line (without its newline); lines with nothing for the stream give null, among them
 * ``Cannot handle "host" cmdline arg `x' ...``, which only repeats the resolver error before it.
 */
export function parseTracerouteLine(line: string): TracerouteLine | null {
  const header = HEADER.exec(line);
  if (header) {
    return { type: 'header', host: header[1] ?? '', resolved_ip: header[2] ?? '', max_hops: Number(header[3]) };
  }
  const hop = HOP.exec(line);
  if (hop) return parseHop(Number(hop[1]), hop[2] ?? '');
  if (RESOLVER_ERROR.test(line)) return { type: 'error', message: line };
  // -I and -T need raw sockets (CAP_NET_RAW; -I also works through ping sockets where
  // net.ipv4.ping_group_range allows): without them traceroute says so, then `socket: ...`.
  if (line === PRIVILEGES_ERROR) return { type: 'error', message: line };
  if (line.startsWith('Cannot handle ') && !line.startsWith('Cannot handle "host" cmdline arg')) {
    return { type: 'error', message: line };
  }
  return null;
}

function parseHop(hop: number, rest: string): TracerouteHop | null {
  const probes: TracerouteProbe[] = [];
  let ip: string | null = null;
  const tokens = rest.split(/\s+/).filter((token) => token !== '');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    const last = probes.at(-1);
    if (token === '*') {
      probes.push({ ip: null, rtt_ms: null });
    } else if (RTT.test(token) && tokens[i + 1] === 'ms') {
      probes.push({ ip, rtt_ms: Number(token) });
      i++;
    } else if (token.startsWith('!') && last && last.rtt_ms !== null) {
      last.annotation = token;
    } else if (token.startsWith('(') && token.endsWith(')')) {
      // Without -n: `name (address)`; the address replaces the name read just before.
      ip = token.slice(1, -1);
    } else if (token.startsWith('<')) {
      // ICMP extensions (-e), such as `<MPLS:L=...>`: not part of the spec's hop.
    } else {
      ip = token;
    }
  }
  if (probes.length === 0) return null;
  const answered = probes.find((probe) => probe.rtt_ms !== null);
  const result: TracerouteHop = { type: 'hop', hop, ip: answered?.ip ?? null, rtt_ms: answered?.rtt_ms ?? null };
  if (answered?.annotation) result.annotation = answered.annotation;
  if (probes.length > 1) result.probes = probes;
  return result;
}
