import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp, manualClock } from '../support/app.ts';
import { dig, findDig, startZoneApp, TOKEN, ZONE } from './zone-app.ts';

/** GET /api/v1/resolver/{token} and the beacon: what a test records, for how long, and who may read it. */

const skip = findDig() === null ? 'resolver token test skipped: dig (apt package bind9-dnsutils) not installed' : false;
if (skip) console.log(`# ${skip}`);

const beacon = (name: string) => ({ url: '/resolver-beacon', headers: { host: `${name}.${ZONE}:8080` } });

describe('the resolver test tokens', { skip }, () => {
  it('records each resolver once with the subnet it sent, and forgets the test after its minutes', async () => {
    const clock = manualClock('2026-11-28T06:00:00Z');
    const { app, dnsPort } = await startZoneApp({ RESOLVER_TEST_TOKEN_MINUTES: '5' }, { now: clock.now });
    try {
      const at = { host: '127.0.0.1', port: dnsPort };
      await dig(at, 'A', `${TOKEN.toUpperCase()}.${ZONE}`);
      await dig(at, 'AAAA', `ok-${TOKEN}.${ZONE}`);
      await dig(at, 'A', `bad-${TOKEN}.${ZONE}`, '+subnet=203.0.113.9/24');
      clock.advance(1000);
      const read = await app.inject({ url: `/api/v1/resolver/${TOKEN}` });
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json(), {
        // Unbound would send one address; dig's queries all come from 127.0.0.1, with and without ECS.
        resolvers: [null, '203.0.113.0/24'].map((ecs) => ({
          ip: '127.0.0.1',
          ecs,
          asn: null,
          provider: null,
          country: null,
          city: null,
          hostname: null,
          seen: '2026-11-28T06:00:00.000Z',
        })),
        dnssec: { validating: null, signed: false, broken: false, ds_published: true },
        expires: '2026-11-28T06:05:00.000Z',
      });
      // A later query does not extend the test.
      clock.advance(4 * 60_000);
      await dig(at, 'A', `${TOKEN}.${ZONE}`, '+subnet=198.51.100.0/24');
      clock.advance(60_000);
      const expired = await app.inject({ url: `/api/v1/resolver/${TOKEN}` });
      assert.equal(expired.statusCode, 404);
      assert.match(expired.json().error, /No resolver has asked for this token/);
    } finally {
      await app.close();
    }
  });

  it('learns whether the resolvers validate from the beacons of the signed and the broken name', async () => {
    const { app, dnsPort } = await startZoneApp();
    try {
      const at = { host: '127.0.0.1', port: dnsPort };
      const verdict = async (token: string) =>
        (await app.inject({ url: `/api/v1/resolver/${token}` })).json().dnssec.validating;
      const [validating, notValidating, unknown] = ['a', 'b', 'c'].map((c) => `${c.repeat(20)}2345`);
      for (const token of [validating, notValidating, unknown]) await dig(at, 'A', `${token}.${ZONE}`);
      const sent = await app.inject(beacon(`ok-${validating}`));
      assert.equal(sent.statusCode, 204);
      assert.equal(sent.headers['cache-control'], 'no-store');
      assert.equal(sent.headers['access-control-allow-origin'], '*');
      assert.equal(sent.body, '');
      await app.inject(beacon(`OK-${notValidating}`));
      await app.inject(beacon(`bad-${notValidating}`));
      assert.equal(await verdict(validating as string), true);
      assert.equal(await verdict(notValidating as string), false);
      assert.equal(await verdict(unknown as string), null);

      // Without the DS in the parent zone, both names resolve for every resolver: no verdict.
      const unpublished = await startZoneApp({ RESOLVER_TEST_DS_PUBLISHED: 'false' });
      try {
        await dig({ host: '127.0.0.1', port: unpublished.dnsPort }, 'A', `${notValidating}.${ZONE}`);
        await unpublished.app.inject(beacon(`ok-${notValidating}`));
        await unpublished.app.inject(beacon(`bad-${notValidating}`));
        const { dnssec } = (await unpublished.app.inject({ url: `/api/v1/resolver/${notValidating}` })).json();
        assert.deepEqual(dnssec, { validating: null, signed: true, broken: true, ds_published: false });
      } finally {
        await unpublished.app.close();
      }
      // A beacon for a token no resolver asked about stores nothing (no memory for made-up names).
      const stranger = 'dddddddddddddddddddddddd';
      assert.equal((await app.inject(beacon(`ok-${stranger}`))).statusCode, 204);
      assert.equal((await app.inject({ url: `/api/v1/resolver/${stranger}` })).statusCode, 404);
    } finally {
      await app.close();
    }
  });

  it('refuses a malformed token with 400 and counts every call against the limits', async () => {
    const { app } = await startZoneApp({ RATE_LIMITS: 'public=3/100' });
    try {
      const bad = await app.inject({ url: '/api/v1/resolver/short' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().error, /Invalid path parameter 'token': the random name of one test/);
      assert.equal((await app.inject({ url: '/api/v1/resolver/ABCDEFGHIJKLMNOPQRSTUVWX' })).statusCode, 400);
      const unknown = await app.inject({ url: `/api/v1/resolver/${TOKEN}` });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.headers['x-ratelimit-remaining'], '0');
      assert.equal((await app.inject({ url: `/api/v1/resolver/${TOKEN}` })).statusCode, 429);
      // The beacon is no API call: never limited.
      assert.equal((await app.inject(beacon(`ok-${TOKEN}`))).statusCode, 204);
    } finally {
      await app.close();
    }
  });

  it('answers 503 naming RESOLVER_TEST_ZONE when the operator has not set it', async () => {
    const app = await buildTestApp();
    try {
      const off = await app.inject({ url: `/api/v1/resolver/${TOKEN}` });
      assert.equal(off.statusCode, 503);
      assert.match(off.json().error, /RESOLVER_TEST_ZONE/);
      assert.equal((await app.inject(beacon(`ok-${TOKEN}`))).statusCode, 204);
    } finally {
      await app.close();
    }
  });
});
