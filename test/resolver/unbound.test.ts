import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dsText, loadOrCreateZoneKey } from '../../src/resolver/dnssec.ts';
import { startZoneResolver, type ZoneResolver } from '../support/resolver-test-unbound.ts';
import { findUnbound } from '../support/validating-resolver.ts';
import { dig, findDig, readDig, startZoneApp, TOKEN, ZONE, type ZoneApp } from './zone-app.ts';

/**
 * Unbound as the visitor's validating resolver, the zone's listener as the authority it asks
 * (stub zone, the DS the service logs as trust anchor): the signatures made on the fly validate, the
 * broken name is refused, denial by black lies validates, and the API lists Unbound as the resolver.
 */

const missing = [findUnbound() ? '' : 'unbound (apt package unbound)', findDig() ? '' : 'dig (bind9-dnsutils)'].filter(
  Boolean,
);
const skip = missing.length > 0 ? `resolver test with Unbound skipped: ${missing.join(' and ')} not installed` : false;
if (skip) console.log(`# ${skip}`);

describe('the resolver test behind a validating Unbound', { skip }, () => {
  let zone: ZoneApp;
  let unbound: ZoneResolver;
  before(async () => {
    // Listed out of order: the signature is over the RRset sorted canonically (RFC 4034 §6.3).
    zone = await startZoneApp({ RESOLVER_TEST_ADDRESSES: '127.0.0.20,127.0.0.1,::1' });
    // The DS the service logs for the operator to publish: if it named no key of the zone, nothing would validate.
    const ds = dsText(ZONE, loadOrCreateZoneKey(path.resolve('.tmp/test-data')));
    unbound = await startZoneResolver(ZONE, { host: '127.0.0.1', port: zone.dnsPort }, { trustAnchor: ds });
  });
  after(async () => {
    await unbound?.stop();
    await zone?.app.close();
  });

  it("answers whoami with Unbound's address, validated", async () => {
    const answer = readDig(await dig(unbound.server, 'TXT', `whoami.${ZONE}`, '+dnssec'));
    assert.equal(answer.status, 'NOERROR');
    assert.ok(answer.flags.includes('ad'), 'AD: the whoami answer validates');
    assert.equal(answer.answers.find((row) => row[3] === 'TXT')?.[4], '"127.0.0.1"');
  });

  it('validates the signed names (AD), SERVFAILs the broken one, and validates denial of a missing type', async () => {
    for (const name of [`${TOKEN}.${ZONE}`, `ok-${TOKEN}.${ZONE}`]) {
      const signed = readDig(await dig(unbound.server, 'A', name, '+dnssec'));
      assert.equal(signed.status, 'NOERROR', name);
      assert.ok(signed.flags.includes('ad'), `${name} is AD-secure`);
      assert.deepEqual(
        signed.answers
          .filter((row) => row[3] === 'A')
          .map((row) => row[4])
          .sort(),
        ['127.0.0.1', '127.0.0.20'],
      );
    }
    const broken = readDig(await dig(unbound.server, 'A', `bad-${TOKEN}.${ZONE}`, '+dnssec'));
    assert.equal(broken.status, 'SERVFAIL');
    // With CD the data arrives unvalidated: the name exists, only its signature is wrong.
    const unchecked = readDig(await dig(unbound.server, 'A', `bad-${TOKEN}.${ZONE}`, '+dnssec', '+cd'));
    assert.equal(unchecked.status, 'NOERROR');
    for (const [type, name] of [
      ['MX', `ok-${TOKEN}.${ZONE}`],
      ['TYPE65', `ok-${TOKEN}.${ZONE}`],
      ['A', `nothing-here.${ZONE}`],
    ]) {
      const denied = readDig(await dig(unbound.server, type as string, name as string, '+dnssec'));
      assert.equal(denied.status, 'NOERROR', `${type} ${name}`);
      assert.ok(denied.flags.includes('ad'), `${type} ${name}: the denial validates`);
      assert.equal(denied.answers.length, 0);
    }
  });

  it("lists Unbound's address for the token in /api/v1/resolver/{token}", async () => {
    const token = 'zzzzyyyyxxxxwwwwvvvv2222';
    await dig(unbound.server, 'AAAA', `${token}.${ZONE}`);
    const response = await zone.app.inject({ url: `/api/v1/resolver/${token}` });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(
      body.resolvers.map((resolver: { ip: string }) => resolver.ip),
      ['127.0.0.1'],
    );
    assert.equal(body.resolvers[0].ecs, null);
    assert.equal(response.headers['cache-control'], 'no-store');
  });
});
