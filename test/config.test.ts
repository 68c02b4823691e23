import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CONFIGURATION_PAGE, withTable } from '../scripts/config-table.ts';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults: the spec tiers, port 8080, dual-stack, nothing trusted', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '::');
  assert.equal(config.trustProxy.enabled, false);
  assert.equal(config.logLevel, 'info');
  assert.deepEqual(config.rateLimits.public, { hourly: 100, daily: 500 });
  assert.deepEqual(config.rateLimits.pro, { hourly: 10_000, daily: 100_000 });
  assert.ok(path.isAbsolute(config.dataDir));
  assert.ok(Object.isFrozen(config));
});

test('every bad value is reported, each naming its variable', () => {
  assert.throws(
    () => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud', TRUST_PROXY: 'nope', RATE_LIMITS: 'x' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      for (const name of ['PORT', 'LOG_LEVEL', 'TRUST_PROXY', 'RATE_LIMITS'])
        assert.match(error.message, new RegExp(`${name}:`));
      return true;
    },
  );
});

test('REDIS_URL: the database number is 0 to 15, and a refusal never shows the password', () => {
  assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/15' }).redisUrl, 'redis://127.0.0.1:6379/15');
  for (const db of ['abc', '16', '99', '-1', '01']) {
    assert.throws(
      () => loadConfig({ REDIS_URL: `redis://:s3cret@127.0.0.1:6379/${db}` }),
      (error: unknown) =>
        error instanceof ConfigError &&
        new RegExp(`REDIS_URL: the database after the host must be a number from 0 to 15, got "/${db}"`).test(
          error.message,
        ) &&
        !error.message.includes('s3cret'),
      db,
    );
  }
});

test('numbers are written in digits: hexadecimal, binary, signs and trailing dots are refused', () => {
  assert.equal(loadConfig({ PORT: ' 8081 ' }).port, 8081);
  for (const port of ['0x1F90', '0b101', '+5', '10.', '1e3', '8080abc']) {
    assert.throws(() => loadConfig({ PORT: port }), /PORT: must be a whole number/, port);
  }
});

test('HOST: an address or a name, without brackets or a port', () => {
  assert.equal(loadConfig({ HOST: '::1' }).host, '::1');
  assert.equal(loadConfig({ HOST: 'localhost' }).host, 'localhost');
  assert.throws(() => loadConfig({ HOST: '[::1]' }), /HOST: write an IPv6 address without brackets \(::1\)/);
  assert.throws(() => loadConfig({ HOST: '127.0.0.1:80' }), /HOST: must be an address or a host name without a port/);
});

test('a download URL that is refused is quoted without its password', () => {
  assert.throws(
    () => loadConfig({ FEED_TOR_URL: 'htp://mirror:PW123@127.0.0.1/tor' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /mirror:\*\*\*@127\.0\.0\.1/.test(error.message) &&
      !error.message.includes('PW123'),
  );
});

test("docs/configuration.md's table matches the declared variables", () => {
  const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
  assert.ok(page === withTable(page), 'docs/configuration.md table is stale: run `npm run docs:config`');
});
