import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';
import { dig, findDig, startZoneApp, TOKEN, ZONE } from './zone-app.ts';

/**
 * With REDIS_URL, a test is one for every instance: the resolver's query may reach one instance's
 * listener, the browser's beacon another, and the page's read a third.
 */

const skip = redisSkipReason || (findDig() === null ? 'dig (apt package bind9-dnsutils) not installed' : false);
if (skip) console.log(`# resolver tokens over Redis skipped: ${skip}`);

describe('resolver test tokens shared through Redis', { skip, timeout: 60_000 }, () => {
  const suite = redisForSuite();

  it('are seen by one instance and read by another', async () => {
    await suite.client.flushall();
    const one = await startZoneApp({ REDIS_URL: suite.redis.url });
    const other = await startZoneApp({ REDIS_URL: suite.redis.url });
    try {
      await dig({ host: '127.0.0.1', port: one.dnsPort }, 'A', `ok-${TOKEN}.${ZONE}`, '+subnet=192.0.2.0/24');
      await other.app.inject({ url: '/resolver-beacon', headers: { host: `ok-${TOKEN}.${ZONE}` } });
      const read = await one.app.inject({ url: `/api/v1/resolver/${TOKEN}` });
      assert.equal(read.statusCode, 200);
      const body = read.json();
      assert.deepEqual(
        body.resolvers.map((r: { ip: string; ecs: string }) => [r.ip, r.ecs]),
        [['127.0.0.1', '192.0.2.0/24']],
      );
      assert.deepEqual(body.dnssec, { validating: true, signed: true, broken: false, ds_published: true });
      // Kept no longer than the test lasts.
      const [key] = await suite.client.keys(`*resolver-test*${TOKEN}*`);
      assert.ok(key !== undefined, 'the token is in Redis');
      const ttl = await suite.client.ttl(key);
      assert.ok(ttl > 0 && ttl <= 600, `TTL ${ttl} s`);
    } finally {
      await one.app.close();
      await other.app.close();
    }
  });
});
