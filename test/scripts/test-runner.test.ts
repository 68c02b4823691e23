import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describePackages, missingMessage, SYSTEM_PACKAGES } from '../../scripts/system-packages.ts';

// Regression: npm test said "real DNS server and dig for the DNS tests" for every missing test
// package, Chromium, Redis and PostgreSQL included.
test('a missing system package is named with what it is for, each its own reason', () => {
  const message = missingMessage(SYSTEM_PACKAGES.test);
  const line = (command: string) => message.split('\n').find((text) => text.trimStart().startsWith(`${command} `));
  assert.match(line('chromium') ?? '', /chromium \(apt package chromium\): the dashboard and CORS tests in a browser/);
  assert.doesNotMatch(line('chromium') ?? '', /DNS/);
  assert.match(line('redis-server') ?? '', /Redis/);
  assert.doesNotMatch(line('redis-server') ?? '', /DNS/);
  assert.match(line('pg_ctlcluster') ?? '', /PostgreSQL/);
  assert.match(line('knotd') ?? '', /DNS server/);
  assert.match(line('dig') ?? '', /dig/);
  assert.match(message, /sudo apt-get install -y knot bind9-dnsutils redis-server chromium postgresql$/);
  const purposes = [...SYSTEM_PACKAGES.runtime, ...SYSTEM_PACKAGES.test].map((entry) => entry.purpose);
  assert.equal(new Set(purposes).size, purposes.length, 'no reason is copied onto another package');
  assert.equal(
    describePackages(SYSTEM_PACKAGES.runtime),
    'iputils-ping (/api/v1/ping and its tests), traceroute (/api/v1/traceroute and its tests)',
  );
});
