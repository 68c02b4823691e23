import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMtrSession } from '../../../src/probes/mtr/session.ts';

test('mtr session: an address is looked up once while its name is awaited and never again after; events keep their order', async () => {
  const lookups: string[] = [];
  let answer: (name: string) => void = () => {};
  const events: { type: string; hop?: number; hostname?: string | null; sent?: number }[] = [];
  const session = createMtrSession({
    address: '203.0.113.2',
    family: 4,
    count: 3,
    hostnameOf: (ip) => {
      lookups.push(ip);
      return new Promise((resolve) => {
        answer = resolve;
      });
    },
    emit: (event) => events.push(event),
  });
  const round = (seq: number) => session.stdout(Buffer.from(`x 0 ${seq}\nh 0 203.0.113.2\np 0 900 ${seq}\n`));
  round(1);
  round(2);
  assert.deepEqual(lookups, ['203.0.113.2'], 'a second lookup while the first was awaited');
  assert.equal(events.length, 0, 'no event before its name');
  answer('target.example');
  await session.settled();
  round(3);
  await session.settled();
  assert.deepEqual(lookups, ['203.0.113.2'], 'looked up again once known');
  assert.deepEqual(
    events.map((event) => [event.hop, event.sent, event.hostname]),
    [
      [1, 1, 'target.example'],
      [1, 2, 'target.example'],
      [1, 3, 'target.example'],
    ],
  );
});
