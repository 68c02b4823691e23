import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePingLine } from '../../../src/probes/ping/parse.ts';

// Hand-written lines in iputils' format for forms the fixtures (all captured with -n) do not show.
test('without -n, reply and ICMP error lines carry `name (address)`; the address is kept', () => {
  assert.deepEqual(parsePingLine('64 bytes from host.example (192.0.2.7): icmp_seq=2 ttl=57 time=12 ms'), {
    type: 'reply',
    seq: 2,
    ip: '192.0.2.7',
    time_ms: 12,
    ttl: 57,
  });
  assert.deepEqual(parsePingLine('From gw.example (192.0.2.1) icmp_seq=3 Destination Port Unreachable'), {
    type: 'unreachable',
    seq: 3,
    from: '192.0.2.1',
    message: 'Destination Port Unreachable',
  });
});

test('statistics with errors and duplicates, rtt with a pipe suffix', () => {
  assert.deepEqual(
    parsePingLine('5 packets transmitted, 3 received, +1 duplicates, +2 errors, 40% packet loss, time 4005ms'),
    { type: 'statistics', transmitted: 5, received: 3, duplicates: 1, errors: 2, loss_percent: 40 },
  );
  assert.deepEqual(parsePingLine('rtt min/avg/max/mdev = 0.044/0.062/0.077/0.013 ms, pipe 2'), {
    type: 'rtt',
    min_ms: 0.044,
    avg_ms: 0.062,
    max_ms: 0.077,
    mdev_ms: 0.013,
  });
});

test('header with a name keeps both', () => {
  assert.deepEqual(parsePingLine('PING host.example (192.0.2.7) 56(84) bytes of data.'), {
    type: 'header',
    host: 'host.example',
    resolved_ip: '192.0.2.7',
  });
});

test('lines with nothing for the stream give null', () => {
  for (const line of ['', '--- 127.0.0.1 ping statistics ---', 'WARNING: pinging broadcast address']) {
    assert.equal(parsePingLine(line), null, line);
  }
});
