import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ConfigVariable, httpUrl, integerIn, text } from '../config-values.ts';
import {
  createAnonymityReader,
  createConnectionTypeReader,
  createLocationReader,
  createNetworkReader,
} from './data/geo.ts';

/**
 * An operator-supplied MaxMind-format database: the path, checked at startup by opening it as the
 * kind it is configured for, so a missing file or a City file given as the ASN database stops
 * the process with the variable's name rather than quietly answering without that data.
 */
function databasePath(open: (db: Buffer) => unknown) {
  return (raw: string | undefined): string | null => {
    const value = text('')(raw);
    if (value === '') return null;
    const resolved = path.resolve(value);
    let bytes: Buffer;
    try {
      bytes = readFileSync(resolved);
    } catch (error) {
      throw new Error(`cannot read ${resolved}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    try {
      open(bytes);
    } catch (error) {
      throw new Error(`${resolved}: ${(error as Error).message}`);
    }
    return resolved;
  };
}

/** A download URL, `off` to leave that feed out, or the default when unset. */
function feedUrl(fallback: string) {
  return (raw: string | undefined): string | null => {
    if (raw?.trim().toLowerCase() === 'off') return null;
    return httpUrl(fallback)(raw);
  };
}

/**
 * A URL template (`{month}` and `{license_key}` are filled in per download), 'default' when unset
 * (DB-IP Lite, or MaxMind with a licence key), or null for `off` (that database is never downloaded).
 */
function templateUrl(raw: string | undefined): string | null | 'default' {
  const value = text('')(raw);
  if (value === '') return 'default';
  if (value.toLowerCase() === 'off') return null;
  httpUrl(value)(value.replaceAll('{month}', '2000-01').replaceAll('{license_key}', 'key'));
  return value;
}

export const DEFAULT_FEED_URLS = {
  tor: 'https://check.torproject.org/torbulkexitlist',
  vpnIpv4: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv4.txt',
  vpnIpv6: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn/ipv6.txt',
  vpnAsn: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/vpn/ASN.txt',
  datacenterIpv4: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/datacenter/ipv4.txt',
  datacenterIpv6: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/datacenter/ipv6.txt',
  datacenterAsn: 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/input/datacenter/ASN.txt',
  // FireHOL's aggregate of open-proxy lists: maintained, one normalised netset, no account or key.
  proxy: 'https://raw.githubusercontent.com/firehol/blocklist-ipsets/master/firehol_proxies.netset',
} as const;

const feed = (name: string, what: string, key: keyof typeof DEFAULT_FEED_URLS) => ({
  name,
  defaultText: `\`${DEFAULT_FEED_URLS[key]}\``,
  description: `Where \`npm run data:update\` fetches ${what}; \`off\` leaves it out (its indicator is then omitted, never guessed).`,
  parse: feedUrl(DEFAULT_FEED_URLS[key]),
});

export const ipInfoConfigVariables = {
  geoipCityDb: {
    name: 'GEOIP_CITY_DB',
    defaultText: 'empty',
    description:
      'Path to a City or Country database in MaxMind format (GeoIP2/GeoLite2 City, GeoIP2 Enterprise, DB-IP City). Used instead of the downloaded and the embedded data; re-read when `npm run data:update` runs.',
    parse: databasePath(createLocationReader),
  },
  geoipAsnDb: {
    name: 'GEOIP_ASN_DB',
    defaultText: 'empty',
    description:
      'Path to an ASN or ISP database in MaxMind format (GeoLite2-ASN, GeoIP2-ISP, DB-IP ASN). Used instead of the downloaded and the embedded ASN data.',
    parse: databasePath(createNetworkReader),
  },
  geoipAnonymousDb: {
    name: 'GEOIP_ANONYMOUS_DB',
    defaultText: 'empty',
    description:
      'Path to a GeoIP2 Anonymous IP database: adds its VPN, public/residential proxy, Tor and hosting flags to `security`.',
    parse: databasePath(createAnonymityReader),
  },
  geoipConnectionTypeDb: {
    name: 'GEOIP_CONNECTION_TYPE_DB',
    defaultText: 'empty',
    description: 'Path to a GeoIP2 Connection-Type database: evidence for `type` (Cable/DSL, Cellular, Corporate).',
    parse: databasePath(createConnectionTypeReader),
  },
  maxmindLicenseKey: {
    name: 'MAXMIND_LICENSE_KEY',
    defaultText: 'empty',
    description:
      'A MaxMind account licence key: `npm run data:update` then fetches GeoLite2 City and ASN (checksum-verified) instead of DB-IP Lite. Never logged.',
    parse: (raw: string | undefined): string | null => text('')(raw) || null,
  },
  geoipCityUrl: {
    name: 'GEOIP_CITY_URL',
    defaultText:
      '`https://download.db-ip.com/free/dbip-city-lite-{month}.mmdb.gz`, or MaxMind GeoLite2-City when `MAXMIND_LICENSE_KEY` is set',
    description:
      'Where `npm run data:update` and the refresh (DATA_REFRESH_HOURS) fetch the City database (`.mmdb`, `.mmdb.gz` or MaxMind `.tar.gz`); `{month}` becomes the UTC `YYYY-MM` (the previous month is tried when the current one is not published yet), `{license_key}` the key. `off`: never downloaded (the embedded data, or a copy installed earlier, stays in use).',
    parse: templateUrl,
  },
  geoipAsnUrl: {
    name: 'GEOIP_ASN_URL',
    defaultText:
      '`https://download.db-ip.com/free/dbip-asn-lite-{month}.mmdb.gz`, or MaxMind GeoLite2-ASN when `MAXMIND_LICENSE_KEY` is set',
    description:
      'Where `npm run data:update` and the refresh fetch the ASN database; placeholders and `off` as for `GEOIP_CITY_URL`.',
    parse: templateUrl,
  },
  feedTorUrl: feed('FEED_TOR_URL', "the Tor Project's bulk exit list", 'tor'),
  feedVpnIpv4Url: feed('FEED_VPN_IPV4_URL', "X4BNet's VPN-provider IPv4 CIDRs", 'vpnIpv4'),
  feedVpnIpv6Url: feed('FEED_VPN_IPV6_URL', "X4BNet's VPN-provider IPv6 CIDRs", 'vpnIpv6'),
  feedVpnAsnUrl: feed('FEED_VPN_ASN_URL', "X4BNet's VPN-provider ASNs", 'vpnAsn'),
  feedDatacenterIpv4Url: feed('FEED_DATACENTER_IPV4_URL', "X4BNet's datacenter IPv4 CIDRs", 'datacenterIpv4'),
  feedDatacenterIpv6Url: feed('FEED_DATACENTER_IPV6_URL', "X4BNet's datacenter IPv6 CIDRs", 'datacenterIpv6'),
  feedDatacenterAsnUrl: feed('FEED_DATACENTER_ASN_URL', "X4BNet's datacenter ASNs", 'datacenterAsn'),
  feedProxyUrl: feed(
    'FEED_PROXY_URL',
    "FireHOL's open-proxy list (`firehol_proxies`: IPv4 addresses and networks)",
    'proxy',
  ),
  dataRefreshHours: {
    name: 'DATA_REFRESH_HOURS',
    defaultText: '24',
    description:
      'The service runs the data update itself every this many hours, and at once in the background when it starts with no downloaded data (or data older than that), serving what it has meanwhile and swapping the new data in without a restart. A failed attempt (offline) logs one line and keeps the data in use. 0 turns it off (then only `npm run data:update` fetches data).',
    parse: integerIn(0, 8760, 24),
  },
  hostnameTimeoutMs: {
    name: 'HOSTNAME_TIMEOUT_MS',
    defaultText: '500',
    description:
      "How long `/api/v1/json` waits for the caller's reverse DNS name (PTR) before answering without `hostname`; 0 turns the lookup off.",
    parse: integerIn(0, 5000, 500),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
