import { checkAddress } from '../spawn/check-address.ts';

export interface TracerouteOptions {
  /** A literal IPv4 or IPv6 address; names are resolved by the service, never by traceroute. */
  address: string;
  family: 4 | 6;
  /** Highest TTL probed (traceroute -m), 1-255. Default 30, traceroute's own default. */
  maxHops?: number;
  /** Longest wait for a probe's answer (traceroute -w), in seconds. Default 2. */
  waitSeconds?: number;
  /** Probes per hop (traceroute -q), 1-10. Default 1. */
  queries?: number;
  /**
   * `udp` (default): traceroute's default method, UDP datagrams to rising high ports, unprivileged.
   * `icmp`: echo requests (-I). `tcp`: SYNs to `port` (-T -p PORT). Both need raw sockets (docs/deployment.md).
   */
  protocol?: TracerouteProtocol;
  /** Destination port of `tcp` (traceroute -p), 1-65535. Default 80, traceroute's own. */
  port?: number;
}

export type TracerouteProtocol = 'udp' | 'icmp' | 'tcp';
export const TRACEROUTE_DEFAULT_TCP_PORT = 80;

export const TRACEROUTE_DEFAULT_MAX_HOPS = 30;
export const TRACEROUTE_DEFAULT_WAIT_SECONDS = 2;
export const TRACEROUTE_DEFAULT_QUERIES = 1;

/**
 * Arguments for traceroute (Dmitry Butskoy's "modern traceroute for Linux", Debian's `traceroute`
 * package): `-n -q QUERIES -w WAIT -m MAX_HOPS -4|-6 ADDRESS`.
 *
 * One probe per hop by default: the spec's hop event carries one ip and one rtt, and a hop's line is
 * printed only when all its probes are answered or timed out, so one probe makes lines arrive
 * sooner. The cost: a single lost probe (routers rate-limit ICMP) shows the hop as silent.
 */
export function buildTracerouteArgs(opts: TracerouteOptions): string[] {
  const address = checkAddress(opts.address, opts.family);
  const maxHops = opts.maxHops ?? TRACEROUTE_DEFAULT_MAX_HOPS;
  const wait = opts.waitSeconds ?? TRACEROUTE_DEFAULT_WAIT_SECONDS;
  const queries = opts.queries ?? TRACEROUTE_DEFAULT_QUERIES;
  if (!Number.isSafeInteger(maxHops) || maxHops < 1 || maxHops > 255) {
    throw new RangeError(`traceroute maxHops must be an integer from 1 to 255, got ${maxHops}`);
  }
  if (!Number.isSafeInteger(queries) || queries < 1 || queries > 10) {
    throw new RangeError(`traceroute queries must be an integer from 1 to 10, got ${queries}`);
  }
  if (!Number.isFinite(wait) || wait <= 0 || wait > 60) {
    throw new RangeError(`traceroute waitSeconds must be more than 0 and at most 60, got ${wait}`);
  }
  const method = methodArgs(opts.protocol ?? 'udp', opts.port);
  return [
    ...method,
    '-n',
    '-q',
    String(queries),
    '-w',
    String(wait),
    '-m',
    String(maxHops),
    `-${opts.family}`,
    address,
  ];
}

function methodArgs(protocol: TracerouteProtocol, port: number | undefined): string[] {
  if (protocol !== 'tcp' && port !== undefined) {
    throw new RangeError(`traceroute port is only for tcp, got ${port} with ${protocol}`);
  }
  if (protocol === 'udp') return [];
  if (protocol === 'icmp') return ['-I'];
  if (protocol !== 'tcp') throw new RangeError(`traceroute protocol must be udp, icmp or tcp, got ${String(protocol)}`);
  const tcpPort = port ?? TRACEROUTE_DEFAULT_TCP_PORT;
  if (!Number.isSafeInteger(tcpPort) || tcpPort < 1 || tcpPort > 65535) {
    throw new RangeError(`traceroute port must be an integer from 1 to 65535, got ${tcpPort}`);
  }
  return ['-T', '-p', String(tcpPort)];
}
