import { readFileSync } from 'node:fs';
import { type ConfigVariable, integerIn } from '../config-values.ts';
import { chooseDnsServers, type DnsServer } from './servers.ts';

export const dnsConfigVariables = {
  dnsServers: {
    name: 'DNS_SERVERS',
    defaultText: 'the `nameserver` lines of `/etc/resolv.conf`',
    description:
      'Comma-separated resolvers as `ip[:port]` (IPv6 as `[addr]:port`). Every lookup the service makes (DNS, blacklists, reverse names, the hosts it pings, traces or connects to) goes to these servers.',
    parse: (raw: string | undefined): readonly DnsServer[] => {
      const chosen = chooseDnsServers(raw, () => readFileSync('/etc/resolv.conf', 'utf8'));
      if (!chosen.ok) throw new Error(chosen.reason);
      return Object.freeze(chosen.servers);
    },
  },
  dnsTimeoutMs: {
    name: 'DNS_TIMEOUT_MS',
    defaultText: '2000',
    description:
      'How long one DNS query waits for a server before trying the next; a lookup gives up after 3 times this.',
    parse: integerIn(50, 30_000, 2000),
  },
  dnsCacheEntries: {
    name: 'DNS_CACHE_ENTRIES',
    defaultText: '10000',
    description: 'Answers kept in the in-process DNS cache (by their TTLs; 0 turns the cache off).',
    parse: integerIn(0, 10_000_000, 10_000),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
