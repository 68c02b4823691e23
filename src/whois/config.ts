import { type ConfigVariable, httpUrl, integerIn } from '../config-values.ts';
import { inFlightConfigVariables } from '../limits/in-flight.ts';
import { parseWhoisServer, type WhoisServerAddress } from './server-address.ts';
import { WHOIS_TOOL } from './tool.ts';

const whoisCaps = inFlightConfigVariables(WHOIS_TOOL, { all: 200, perClient: 5 });

export const whoisConfigVariables = {
  whoisServer: {
    name: 'WHOIS_SERVER',
    defaultText: '`whois.iana.org:43`',
    description:
      "The WHOIS server every lookup starts at, as `host[:port]` (IPv6 as `[addr]:port`); referrals are followed from there. The operator's choice, so the private-address rule does not apply to it (it does to every referral).",
    parse: (raw: string | undefined): WhoisServerAddress => {
      const parsed = parseWhoisServer(raw === undefined || raw.trim() === '' ? 'whois.iana.org:43' : raw);
      if (!parsed.ok) throw new Error(parsed.reason);
      return parsed.server;
    },
  },
  whoisTimeoutMs: {
    name: 'WHOIS_TIMEOUT_MS',
    defaultText: '5000',
    description:
      'How long one WHOIS server (resolving its name, connecting and reading the whole answer) or one RDAP request may take before it counts as failed.',
    parse: integerIn(100, 60_000, 5000),
  },
  whoisCacheSeconds: {
    name: 'WHOIS_CACHE_SECONDS',
    defaultText: '3600',
    description:
      "How long a /whois result is served from the cache (`cached: true`); a result that lacks a failed server's answer is kept 60 s at most. 0 turns the cache off.",
    parse: integerIn(0, 7 * 86_400, 3600),
  },
  whoisCacheEntries: {
    name: 'WHOIS_CACHE_ENTRIES',
    defaultText: '5000',
    description:
      'Results kept in the in-process WHOIS cache at most (least recently used go first; a result is a few KiB).',
    parse: integerIn(0, 1_000_000, 5000),
  },
  rdapBootstrapUrl: {
    name: 'RDAP_BOOTSTRAP_URL',
    defaultText: '`https://data.iana.org/rdap/`',
    description:
      "Where IANA's RDAP bootstrap registries (`dns.json`, `ipv4.json`, `ipv6.json`, `asn.json`) are refreshed from while the service runs; the snapshot shipped in `src/whois/rdap/iana-bootstrap.json` is used until then. `off`: never refreshed, the shipped snapshot only.",
    parse: (raw: string | undefined): string | null =>
      raw?.trim().toLowerCase() === 'off' ? null : httpUrl('https://data.iana.org/rdap/')(raw),
  },
  rdapBootstrapRefreshHours: {
    name: 'RDAP_BOOTSTRAP_REFRESH_HOURS',
    defaultText: '24',
    description:
      'Age after which the RDAP bootstrap data is refreshed (in the background, on the next lookup that needs it). 0: never refresh, use the shipped snapshot only.',
    parse: integerIn(0, 8760, 24),
  },
  whoisMaxInFlight: whoisCaps.all,
  whoisMaxInFlightPerClient: whoisCaps.perClient,
} satisfies Record<string, ConfigVariable<unknown>>;

/** The settings the WHOIS service reads, by the names config.ts gives them. */
export interface WhoisSettings {
  readonly whoisServer: WhoisServerAddress;
  readonly whoisTimeoutMs: number;
  readonly whoisCacheSeconds: number;
}
