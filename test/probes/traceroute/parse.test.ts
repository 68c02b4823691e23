import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTracerouteLine } from '../../../src/probes/traceroute/parse.ts';
import { isDestinationReached } from '../../../src/probes/traceroute/progress.ts';

// Hand-written lines in traceroute's format for cases the closed test network cannot produce (load
// balancing, name lookups); the real captures are in fixtures.test.ts.
test('different addresses within one hop line keep each probe its own address', () => {
  assert.deepEqual(parseTracerouteLine(' 4  198.51.100.7  1.512 ms 198.51.100.9  1.601 ms *'), {
    type: 'hop',
    hop: 4,
    ip: '198.51.100.7',
    rtt_ms: 1.512,
    probes: [
      { ip: '198.51.100.7', rtt_ms: 1.512 },
      { ip: '198.51.100.9', rtt_ms: 1.601 },
      { ip: null, rtt_ms: null },
    ],
  });
});

test('the first answered probe describes the hop even after a star', () => {
  const hop = parseTracerouteLine('12  * 203.0.113.9  20.5 ms !F-1480  21 ms');
  assert.deepEqual(hop, {
    type: 'hop',
    hop: 12,
    ip: '203.0.113.9',
    rtt_ms: 20.5,
    annotation: '!F-1480',
    probes: [
      { ip: null, rtt_ms: null },
      { ip: '203.0.113.9', rtt_ms: 20.5, annotation: '!F-1480' },
      { ip: '203.0.113.9', rtt_ms: 21 },
    ],
  });
});

test('without -n the address in parentheses wins over the name; ICMP extensions are ignored', () => {
  assert.deepEqual(parseTracerouteLine(' 2  router.example (198.51.100.2)  0.4 ms <MPLS:L=24001,E=0,S=1,T=1>'), {
    type: 'hop',
    hop: 2,
    ip: '198.51.100.2',
    rtt_ms: 0.4,
  });
});

test('lines that are neither header, hop nor resolver error give null', () => {
  for (const line of ['', 'Cannot handle "host" cmdline arg `x\' on position 1 (argc 8)', 'garbage']) {
    assert.equal(parseTracerouteLine(line), null, line);
  }
});

test('isDestinationReached looks at every probe, not only the first answered one', () => {
  const hop = parseTracerouteLine(' 3  203.0.113.1  1 ms 203.0.113.2  1 ms  1 ms');
  assert.ok(hop);
  assert.equal(isDestinationReached([hop], '203.0.113.2'), true);
  assert.equal(isDestinationReached([hop], '203.0.113.3'), false);
});
