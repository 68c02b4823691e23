import type { Config } from '../../config.ts';
import type { SourceId } from '../data-files.ts';
import type { UpdatePlan } from './run-update.ts';

const DBIP = (kind: 'city' | 'asn') => `https://download.db-ip.com/free/dbip-${kind}-lite-{month}.mmdb.gz`;
const MAXMIND = (edition: string) =>
  `https://download.maxmind.com/app/geoip_download?edition_id=${edition}&license_key={license_key}&suffix=tar.gz`;

/** What `npm run data:update` (and the periodic refresh) fetches, from the configuration. */
export function updatePlanFromConfig(config: Config): UpdatePlan {
  const key = config.maxmindLicenseKey;
  const urls: Record<SourceId, string | null> = {
    city: config.geoipCityUrl ?? (key ? MAXMIND('GeoLite2-City') : DBIP('city')),
    asn: config.geoipAsnUrl ?? (key ? MAXMIND('GeoLite2-ASN') : DBIP('asn')),
    tor: config.feedTorUrl,
    'vpn-ipv4': config.feedVpnIpv4Url,
    'vpn-ipv6': config.feedVpnIpv6Url,
    'vpn-asn': config.feedVpnAsnUrl,
    'datacenter-ipv4': config.feedDatacenterIpv4Url,
    'datacenter-ipv6': config.feedDatacenterIpv6Url,
    'datacenter-asn': config.feedDatacenterAsnUrl,
  };
  const skip: UpdatePlan['skip'] = {};
  if (config.geoipCityDb) skip.city = `GEOIP_CITY_DB is set (${config.geoipCityDb})`;
  if (config.geoipAsnDb) skip.asn = `GEOIP_ASN_DB is set (${config.geoipAsnDb})`;
  return { dataDir: config.dataDir, urls, skip, licenseKey: key };
}

/**
 * The URLs to try, in order. A `{month}` template (DB-IP publishes one file a month, some days
 * into it) gives this UTC month and, when that is not published yet, the month before.
 */
export function candidateUrls(template: string, now: Date, licenseKey: string | null): string[] {
  const fill = (month: string) =>
    template.replaceAll('{month}', month).replaceAll('{license_key}', encodeURIComponent(licenseKey ?? ''));
  if (!template.includes('{month}')) return [fill('')];
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const label = (y: number, m: number) => `${y}-${String(m + 1).padStart(2, '0')}`;
  return [fill(label(year, month)), fill(month === 0 ? label(year - 1, 11) : label(year, month - 1))];
}

/** MaxMind's download API serves the archive's SHA-256 at the same URL with `suffix=tar.gz.sha256`. */
export function checksumUrlFor(url: string): string | null {
  return /[?&]suffix=tar\.gz(&|$)/.test(url) ? url.replace(/([?&]suffix=)tar\.gz(?=&|$)/, '$1tar.gz.sha256') : null;
}
