import { pathToFileURL } from 'node:url';
import type { SourceId } from '../data/data-files.ts';

/** What one update fetches and where it installs it: built from the configuration, run by run-update.ts. */
export interface UpdatePlan {
  dataDir: string;
  /** The URL template of each source; null leaves it out (a disabled feed). */
  urls: Record<SourceId, string | null>;
  /** Why a source is not downloaded at all (an operator-supplied database is configured). */
  skip: Partial<Record<SourceId, string>>;
  licenseKey: string | null;
}

/** The configuration an update plan is built from: where each source comes from, DATA_DIR. */
export interface UpdatePlanConfig {
  readonly dataDir: string;
  readonly maxmindLicenseKey: string | null;
  /** 'default': DB-IP Lite, or MaxMind with a licence key; null: `off`, never downloaded. */
  readonly geoipCityUrl: string | null | 'default';
  readonly geoipAsnUrl: string | null | 'default';
  /** An operator-supplied database, which no update replaces. */
  readonly geoipCityDb: string | null;
  readonly geoipAsnDb: string | null;
  readonly feedTorUrl: string | null;
  readonly feedVpnIpv4Url: string | null;
  readonly feedVpnIpv6Url: string | null;
  readonly feedVpnAsnUrl: string | null;
  readonly feedDatacenterIpv4Url: string | null;
  readonly feedDatacenterIpv6Url: string | null;
  readonly feedDatacenterAsnUrl: string | null;
  readonly feedProxyUrl: string | null;
  readonly rpkiFeedUrl: string | null;
  /** The operator's own validator's export: read instead of FEED_RPKI_URL. */
  readonly rpkiVrpFile: string | null;
}

const DBIP = (kind: 'city' | 'asn') => `https://download.db-ip.com/free/dbip-${kind}-lite-{month}.mmdb.gz`;
const MAXMIND = (edition: string) =>
  `https://download.maxmind.com/app/geoip_download?edition_id=${edition}&license_key={license_key}&suffix=tar.gz`;

/** What `npm run data:update` (and the periodic refresh) fetches, from the configuration. */
export function updatePlanFromConfig(config: UpdatePlanConfig): UpdatePlan {
  const key = config.maxmindLicenseKey;
  const urls: Record<SourceId, string | null> = {
    city: config.geoipCityUrl === 'default' ? (key ? MAXMIND('GeoLite2-City') : DBIP('city')) : config.geoipCityUrl,
    asn: config.geoipAsnUrl === 'default' ? (key ? MAXMIND('GeoLite2-ASN') : DBIP('asn')) : config.geoipAsnUrl,
    tor: config.feedTorUrl,
    'vpn-ipv4': config.feedVpnIpv4Url,
    'vpn-ipv6': config.feedVpnIpv6Url,
    'vpn-asn': config.feedVpnAsnUrl,
    'datacenter-ipv4': config.feedDatacenterIpv4Url,
    'datacenter-ipv6': config.feedDatacenterIpv6Url,
    'datacenter-asn': config.feedDatacenterAsnUrl,
    proxy: config.feedProxyUrl,
    rpki: config.rpkiVrpFile === null ? config.rpkiFeedUrl : pathToFileURL(config.rpkiVrpFile).href,
  };
  const skip: UpdatePlan['skip'] = {};
  if (config.geoipCityDb) skip.city = `GEOIP_CITY_DB is set (${config.geoipCityDb})`;
  if (config.geoipAsnDb) skip.asn = `GEOIP_ASN_DB is set (${config.geoipAsnDb})`;
  return { dataDir: config.dataDir, urls, skip, licenseKey: key };
}

/** The same plan for the VRP set alone: the refresh every RPKI_REFRESH_MINUTES. */
export function rpkiOnlyPlan(plan: UpdatePlan): UpdatePlan {
  const skip: UpdatePlan['skip'] = {};
  for (const id of Object.keys(plan.urls) as SourceId[]) if (id !== 'rpki') skip[id] = 'not in the RPKI refresh';
  return { ...plan, skip };
}
