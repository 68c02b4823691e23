import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Job, signJob, verifyJob } from '../../src/mesh/job.ts';

const SECRET = 'a-mesh-secret-of-at-least-32-characters';
const job: Job = {
  measurement: '0123456789abcdef0123456789abcdef',
  probe: 0,
  node: 'fra',
  type: 'ping',
  target: 'example.com',
  options: { count: '3' },
  client_ip: '192.0.2.1',
  origin: 'nyc',
};

test('a job signed with the mesh key verifies, and is the job', () => {
  assert.deepEqual(verifyJob(signJob(job, SECRET), SECRET), job);
});

test('a job altered, signed with another key, or with a malformed signature is refused', () => {
  const signed = signJob(job, SECRET);
  assert.equal(verifyJob({ ...signed, json: signed.json.replace('example.com', 'example.net') }, SECRET), null);
  assert.equal(verifyJob(signJob(job, `${SECRET}x`), SECRET), null);
  assert.equal(verifyJob({ ...signed, signature: 'zz' }, SECRET), null);
  assert.equal(verifyJob({ ...signed, signature: '' }, SECRET), null);
});
