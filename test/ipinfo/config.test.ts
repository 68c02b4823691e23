import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { updatePlanFromConfig } from '../../src/ipinfo/updater/update-plan.ts';
import { mmdbPath } from '../support/mmdb-fixtures.ts';

const base = { DNS_SERVERS: '127.0.0.1:9' };

describe('IP data settings', () => {
  it('defaults: embedded data, DB-IP Lite downloads, every feed on, refresh every 24 h, 500 ms hostname wait', () => {
    const config = loadConfig(base);
    assert.equal(config.geoipCityDb, null);
    assert.equal(config.dataRefreshHours, 24);
    assert.equal(config.hostnameTimeoutMs, 500);
    const plan = updatePlanFromConfig(config);
    assert.equal(plan.urls.city, 'https://download.db-ip.com/free/dbip-city-lite-{month}.mmdb.gz');
    assert.equal(plan.urls.tor, 'https://check.torproject.org/torbulkexitlist');
    assert.equal(
      plan.urls.proxy,
      'https://raw.githubusercontent.com/firehol/blocklist-ipsets/master/firehol_proxies.netset',
    );
    assert.deepEqual(plan.skip, {});
  });

  it('a licence key switches the downloads to MaxMind; templates and `off` are kept as written', () => {
    const config = loadConfig({
      ...base,
      MAXMIND_LICENSE_KEY: 'k',
      GEOIP_ASN_URL: 'https://mirror.test/asn-{month}.mmdb',
      FEED_VPN_IPV6_URL: 'off',
    });
    const plan = updatePlanFromConfig(config);
    assert.match(plan.urls.city ?? '', /edition_id=GeoLite2-City&license_key=\{license_key\}&suffix=tar\.gz$/);
    assert.equal(plan.urls.asn, 'https://mirror.test/asn-{month}.mmdb');
    assert.equal(plan.urls['vpn-ipv6'], null);
    assert.equal(plan.licenseKey, 'k');
  });

  it('every source URL accepts `off` (case-insensitive): that source is never downloaded', () => {
    const plan = updatePlanFromConfig(
      loadConfig({ ...base, GEOIP_CITY_URL: 'off', GEOIP_ASN_URL: 'OFF', FEED_PROXY_URL: 'Off', FEED_TOR_URL: 'off' }),
    );
    assert.equal(plan.urls.city, null);
    assert.equal(plan.urls.asn, null);
    assert.equal(plan.urls.proxy, null);
    assert.equal(plan.urls.tor, null);
    assert.throws(() => loadConfig({ ...base, FEED_PROXY_URL: 'offline' }), /FEED_PROXY_URL/);
  });

  it('operator databases are opened at startup: a wrong kind or a missing file names the variable', () => {
    const config = loadConfig({
      ...base,
      GEOIP_CITY_DB: mmdbPath('GeoIP2-City-Test'),
      GEOIP_ASN_DB: mmdbPath('GeoIP2-ISP-Test'),
    });
    assert.equal(config.geoipCityDb, mmdbPath('GeoIP2-City-Test'));
    assert.deepEqual(updatePlanFromConfig(config).skip, {
      city: `GEOIP_CITY_DB is set (${mmdbPath('GeoIP2-City-Test')})`,
      asn: `GEOIP_ASN_DB is set (${mmdbPath('GeoIP2-ISP-Test')})`,
    });
    assert.throws(
      () =>
        loadConfig({
          ...base,
          GEOIP_ASN_DB: mmdbPath('GeoIP2-City-Test'),
          GEOIP_ANONYMOUS_DB: '/nonexistent.mmdb',
          FEED_TOR_URL: 'ftp://x',
          DATA_REFRESH_HOURS: '-1',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /GEOIP_ASN_DB: .*expected an ASN or ISP database, got database type 'GeoIP2-City'/);
        assert.match(error.message, /GEOIP_ANONYMOUS_DB: cannot read \/nonexistent\.mmdb: ENOENT/);
        assert.match(error.message, /FEED_TOR_URL: must be an http\(s\) URL/);
        assert.match(error.message, /DATA_REFRESH_HOURS: must be a whole number from 0 to 8760/);
        return true;
      },
    );
  });
});
