/**
 * Every setting that makes the service download something, pointed at a closed loopback port: the
 * IP data sources and the RDAP bootstrap. With DATA_REFRESH_HOURS on by default, a service started
 * without these would fetch from the internet; here a refresh fails at once (one log line) and the
 * data in DATA_DIR stays in use (`off` would not do for the feeds: it also stops a copy installed
 * earlier from being used, which tests that install feeds rely on). The helpers that build or start
 * the service (app.ts, service-process.ts, the benchmarks' SERVICE_ENV, the tests that spawn it)
 * put these first, under the caller's own settings, and test/ipinfo/refresh-by-default.test.ts
 * checks that a service started this way connects to nothing beyond loopback.
 */
const CLOSED = 'http://127.0.0.1:9';

export const NO_DOWNLOADS_ENV: Readonly<Record<string, string>> = {
  GEOIP_CITY_URL: `${CLOSED}/city.mmdb.gz`,
  GEOIP_ASN_URL: `${CLOSED}/asn.mmdb.gz`,
  FEED_TOR_URL: `${CLOSED}/tor`,
  FEED_VPN_IPV4_URL: `${CLOSED}/vpn-ipv4`,
  FEED_VPN_IPV6_URL: `${CLOSED}/vpn-ipv6`,
  FEED_VPN_ASN_URL: `${CLOSED}/vpn-asn`,
  FEED_DATACENTER_IPV4_URL: `${CLOSED}/datacenter-ipv4`,
  FEED_DATACENTER_IPV6_URL: `${CLOSED}/datacenter-ipv6`,
  FEED_DATACENTER_ASN_URL: `${CLOSED}/datacenter-asn`,
  FEED_PROXY_URL: `${CLOSED}/proxy`,
  FEED_RPKI_URL: `${CLOSED}/rpki`,
  RDAP_BOOTSTRAP_URL: `${CLOSED}/rdap/`,
};
