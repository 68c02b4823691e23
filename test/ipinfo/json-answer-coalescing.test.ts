import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Resolver } from '../../src/dns/resolver.ts';
import type { IpDataStore } from '../../src/ipinfo/data/ip-data-store.ts';
import { buildTestApp } from '../support/app.ts';

/** No IP data at all (answers carry what the address alone says), so the test needs no fixtures.
 * The addresses are public ones, but the resolver is a fake: nothing leaves the machine. */
const noData: IpDataStore = {
  current: undefined,
  loaded: () => Promise.reject(new Error('no IP data in this test')),
  reload: async () => {},
  readinessCheck: () => ({ state: 'ready' }),
  async close() {},
};

/** A resolver whose reverse lookups take a while and are counted by address. */
function slowReverseResolver(delayMs: number) {
  const asked: string[] = [];
  const resolver: Resolver = {
    query: async () => {
      throw new Error('not used');
    },
    resolveAddresses: async () => [],
    reverse: async (ip) => {
      asked.push(ip);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return `host-${ip.replaceAll('.', '-')}.example`;
    },
  };
  return { resolver, asked };
}

test('requests for one address while its answer is being made share that answer', async () => {
  const { resolver, asked } = slowReverseResolver(50);
  const app = await buildTestApp({ TRUST_PROXY: 'loopback' }, { resolver, ipData: noData });
  const ask = (ip: string) => app.inject({ url: '/api/v1/json', headers: { 'x-forwarded-for': ip } });

  const together = await Promise.all([
    ...Array.from({ length: 10 }, () => ask('8.8.4.4')),
    ...Array.from({ length: 5 }, () => ask('9.9.9.9')),
  ]);
  assert.deepEqual(
    together.map((response) => response.statusCode),
    Array(15).fill(200),
  );
  for (const response of together.slice(0, 10)) {
    assert.equal(response.json().hostname, 'host-8-8-4-4.example');
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.match(String(response.headers['x-request-id']), /./, 'each request keeps its own headers');
  }
  assert.equal(together[12]?.json().hostname, 'host-9-9-9-9.example');
  assert.deepEqual([...asked].sort(), ['8.8.4.4', '9.9.9.9'], 'one reverse lookup per address');

  // Later requests are answered from the cache; nothing is asked again.
  assert.equal((await ask('8.8.4.4')).json().hostname, 'host-8-8-4-4.example');
  assert.equal(asked.length, 2);
  await app.close();
});
