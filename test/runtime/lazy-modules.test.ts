// What an instance without Redis or PostgreSQL does not need is not loaded (issue 35: every module
// loaded costs its source text and compiled code in each serving process's heap).
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { test } from 'node:test';

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    loaded.add(result.url);
    return result;
  },
});
const { buildTestApp } = await import('../support/app.ts');

const LAZY = /\/node_modules\/(bullmq|ioredis|pg|@modelcontextprotocol\/sdk|nodemailer)\//;

test('without REDIS_URL and DATABASE_URL the app loads neither BullMQ, ioredis, pg, the MCP SDK nor nodemailer (loaded with the first mail)', async () => {
  const app = await buildTestApp();
  await app.ready();
  assert.ok(loaded.size > 100, 'the hook sees the modules the app loads');
  await app.inject({ url: '/api/v1/ipv6' });
  await app.close();
  const found = [...loaded].filter((url) => LAZY.test(url)).map((url) => LAZY.exec(url)?.[1]);
  assert.deepEqual([...new Set(found)], []);
});
