import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A connected socket of a watched process, as /proc shows it. */
export interface SocketPeer {
  readonly pid: number;
  readonly protocol: 'tcp' | 'tcp6' | 'udp' | 'udp6';
  /** The remote address, e.g. `127.0.0.1` or `2001:db8::1` (IPv6 in full, unabbreviated). */
  readonly address: string;
  readonly port: number;
}

/**
 * Watches the sockets of a process and of every process it starts (the data-update child) by
 * reading /proc: each of their socket file descriptors is matched by inode against
 * /proc/net/{tcp,tcp6,udp,udp6}, and the remote end of each connected one is recorded. Sampling
 * every few milliseconds catches any connection that lives longer than that; a TCP connect that
 * cannot reach its peer (SYN_SENT) lasts far longer, and a DNS query over UDP to a non-loopback
 * resolver is a connected UDP socket for its whole round trip. Linux only.
 */
export function watchEgress(rootPid: number, intervalMs = 5): { stop(): SocketPeer[] } {
  const seen = new Map<string, SocketPeer>();
  const sample = () => {
    const pids = processTree(rootPid);
    const inodes = new Map<string, number>();
    for (const pid of pids) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (match) inodes.set(match[1] as string, pid);
        } catch {
          // The descriptor closed while we looked.
        }
      }
    }
    for (const protocol of ['tcp', 'tcp6', 'udp', 'udp6'] as const) {
      for (const row of readFileSync(`/proc/net/${protocol}`, 'utf8').split('\n').slice(1)) {
        const fields = row.trim().split(/\s+/);
        const remote = fields[2];
        const pid = inodes.get(fields[9] ?? '');
        if (remote === undefined || pid === undefined) continue;
        const [hex, portHex] = remote.split(':') as [string, string];
        const port = Number.parseInt(portHex, 16);
        if (port === 0) continue; // not connected: a listener or an unconnected UDP socket
        const peer = { pid, protocol, address: decodeAddress(hex), port };
        seen.set(`${pid} ${protocol} ${peer.address} ${port}`, peer);
      }
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...seen.values()];
    },
  };
}

/** Whether the address is loopback: 127.0.0.0/8, ::1, or 127.x mapped into IPv6. */
export function isLoopback(address: string): boolean {
  if (/^127\./.test(address)) return true;
  if (address === '0000:0000:0000:0000:0000:0000:0000:0001') return true;
  return /^0000:0000:0000:0000:0000:ffff:7f/.test(address);
}

/** The process and all its descendants, from each process's parent in /proc/<pid>/stat. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}

/** /proc/net's hex: IPv4 as one little-endian word, IPv6 as four. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => (word.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) {
    groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16).padStart(4, '0'));
  }
  return groups.join(':');
}
