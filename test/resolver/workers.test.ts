import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findFreePort } from '../support/real-dns-server.ts';
import { redisForSuite, redisSkipReason } from '../support/redis-server.ts';
import { startServiceProcess } from '../support/service-process.ts';
import { dig, findDig, TOKEN, ZONE } from './zone-app.ts';

/**
 * WORKERS=2 with the resolver test: each worker thread opens the DNS port as it opens the HTTP port
 * (reusePort, UDP and TCP), and the supervisor announces the HTTP port.
 */

const skip = redisSkipReason || (findDig() === null ? 'dig (apt package bind9-dnsutils) not installed' : false);
if (skip) console.log(`# resolver test with WORKERS=2 skipped: ${skip}`);

describe('the resolver test with two workers', { skip, timeout: 60_000 }, () => {
  const suite = redisForSuite();

  it('announces the HTTP port and answers DNS from either worker', async () => {
    const [port, dnsPort] = [await findFreePort(), await findFreePort()];
    const service = await startServiceProcess({
      REDIS_URL: suite.redis.url,
      WORKERS: '2',
      PORT: String(port),
      RESOLVER_TEST_ZONE: ZONE,
      RESOLVER_TEST_DNS_PORT: String(dnsPort),
      RESOLVER_TEST_DNS_HOST: '127.0.0.1',
      RESOLVER_TEST_ADDRESSES: '127.0.0.1',
    });
    try {
      assert.equal(service.url, `http://127.0.0.1:${port}`);
      for (let i = 0; i < 4; i++) await dig({ host: '127.0.0.1', port: dnsPort }, 'A', `${TOKEN}.${ZONE}`, '+tcp');
      const response = await fetch(`${service.url}/api/v1/resolver/${TOKEN}`);
      assert.equal(response.status, 200);
      assert.deepEqual(
        ((await response.json()) as { resolvers: { ip: string }[] }).resolvers.map((r) => r.ip),
        ['127.0.0.1'],
      );
    } finally {
      assert.equal(await service.stop(), 0);
    }
  });
});
