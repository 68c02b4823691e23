import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeEnd } from '../../src/mesh/store.ts';
import { judge, MONITOR_CONDITIONS } from '../../src/monitors/monitor-types.ts';

// The edges of judge() the API tests (conditions.test.ts) cannot reach cheaply.

const finished = (result: Record<string, unknown>): ProbeEnd => ({ status: 'finished', result });
const dnsAnswer = (status: string, records: [type: string, value: string][]) =>
  finished({
    record_type: 'A',
    status,
    records: records.map(([record_type, value]) => ({ record_type, value })),
  });
const mailReport = (dmarcProblems: string[], domainProblems: string[] = []) =>
  finished({
    exists: true,
    problems: domainProblems,
    mx: { problems: [] },
    spf: null,
    dmarc: { problems: dmarcProblems },
    dkim: null,
    mta_sts: null,
    tls_rpt: null,
  });

describe('judge: a probe that failed', () => {
  it("is down when the route answered 502 (the target failed), with the route's words as the cause", () => {
    const verdict = judge('http', {}, { status: 'failed', error: 'connection refused', http_status: 502 }, null);
    assert.deepEqual(verdict, {
      state: 'down',
      cause: 'connection refused',
      summary: { error: 'connection refused' },
      responseMs: null,
    });
  });

  it('is down when the route refuses a name that no longer resolves (a 400 saying so)', () => {
    const error = "Invalid query parameter 'host': gone.example has no address (the name does not resolve).";
    const verdict = judge('ping', {}, { status: 'failed', error, http_status: 400 }, null);
    assert.equal(verdict.state, 'down');
    assert.equal(verdict.cause, error);
  });

  const netinfos: [why: string, end: ProbeEnd][] = [
    ['a cap or rate limit (429)', { status: 'failed', error: 'too many', http_status: 429 }],
    ['a node that could not run it (503)', { status: 'failed', error: 'unavailable', http_status: 503 }],
    ['a refusal (400)', { status: 'failed', error: 'bad host', http_status: 400 }],
    ['no status: a stream error event, a node gone, no result in time', { status: 'failed', error: 'no result' }],
  ];
  for (const [why, end] of netinfos) {
    it(`is an error, not down, for ${why}`, () => {
      for (const type of ['http', 'ping', 'dns'] as const) {
        const verdict = judge(type, MONITOR_CONDITIONS[type].defaults, end, null);
        assert.equal(verdict.state, 'error', type);
        assert.equal(verdict.baseline, undefined, `${type}: a failure sets no baseline`);
      }
    });
  }
});

describe('judge: the baseline', () => {
  it('dns answer_changed: the first answer becomes the baseline (sorted, of the type asked only)', () => {
    const answer = dnsAnswer('NOERROR', [
      ['CNAME', 'www.example.test'],
      ['A', '192.0.2.9'],
      ['A', '192.0.2.1'],
    ]);
    const first = judge('dns', { answer_changed: true }, answer, null);
    assert.equal(first.state, 'up');
    assert.deepEqual(first.baseline, ['192.0.2.1', '192.0.2.9']);
    const same = judge('dns', { answer_changed: true }, answer, ['192.0.2.1', '192.0.2.9']);
    assert.deepEqual([same.state, same.baseline], ['up', undefined], 'a baseline is kept, not set again');
    const gone = judge('dns', { answer_changed: true }, dnsAnswer('NOERROR', []), ['192.0.2.1', '192.0.2.9']);
    assert.equal(gone.cause, 'the answer changed from 192.0.2.1, 192.0.2.9 to nothing');
  });

  it('dns: an empty first answer is a baseline too', () => {
    const empty = judge('dns', { answer_changed: true }, dnsAnswer('NOERROR', []), null);
    assert.deepEqual(empty.baseline, []);
    const appeared = judge('dns', { answer_changed: true }, dnsAnswer('NOERROR', [['A', '192.0.2.1']]), []);
    assert.equal(appeared.cause, 'the answer changed from nothing to 192.0.2.1');
  });

  it('dns: no baseline is set when answer_changed is not asked', () => {
    for (const conditions of [{}, { missing: true }, { answer_changed: false }, MONITOR_CONDITIONS.dns.defaults]) {
      const verdict = judge('dns', conditions, dnsAnswer('NOERROR', [['A', '192.0.2.1']]), null);
      assert.equal(verdict.baseline, undefined, JSON.stringify(conditions));
    }
  });

  it("mail new_problem: the first report's problems are the baseline; only a problem not in it is down", () => {
    const first = judge('mail', { new_problem: true }, mailReport(['p=none: ...']), null);
    assert.deepEqual([first.state, first.baseline], ['up', ['dmarc: p=none: ...']]);
    const same = judge('mail', { new_problem: true }, mailReport(['p=none: ...']), ['dmarc: p=none: ...']);
    assert.deepEqual([same.state, same.baseline], ['up', undefined]);
    const worse = judge('mail', { new_problem: true }, mailReport(['p=none: ...'], ['no MX']), ['dmarc: p=none: ...']);
    assert.deepEqual([worse.state, worse.cause], ['down', 'new: domain: no MX']);
    assert.equal(judge('mail', {}, mailReport(['p=none: ...']), null).baseline, undefined, 'not asked: none');
  });
});

describe('judge: several conditions and their edges', () => {
  const http = (status: number, total: number, bodyFound?: boolean) =>
    finished({
      url: 'http://192.0.2.1/',
      status,
      timings: { total },
      body_bytes: 5,
      ...(bodyFound === undefined ? {} : { body_found: bodyFound }),
    });

  it('http: every true condition is in the cause, in order, joined by "; "', () => {
    const verdict = judge(
      'http',
      { status_not: [200], total_ms_over: 100, body_missing: 'ok' },
      http(500, 250, false),
      null,
    );
    assert.equal(verdict.cause, 'status 500 is not 200; took 250 ms, over 100 ms; the body does not contain "ok"');
    assert.equal(verdict.responseMs, 250);
  });

  it('http without status_not: 399 is up, 400 is down', () => {
    assert.equal(judge('http', {}, http(399, 1), null).state, 'up');
    assert.equal(judge('http', {}, http(400, 1), null).cause, 'status 400');
  });

  it('ssl expires_within_days: the day itself counts', () => {
    const ssl = (days: number) =>
      finished({ valid: true, validation_error: null, days_remaining: days, valid_to: 'x', problems: [] });
    assert.equal(judge('ssl', { expires_within_days: 14 }, ssl(14), null).state, 'down');
    assert.equal(judge('ssl', { expires_within_days: 14 }, ssl(15), null).state, 'up');
    assert.equal(
      judge('ssl', { expires_within_days: 14 }, ssl(-2), null).cause,
      'the certificate expired 2 days ago (x), within 14',
    );
  });

  it('ping: no reply is one cause however the loss and average conditions are set, with no response time', () => {
    const dead = finished({ alive: false, packet_loss: 100, min_ms: 0, avg_ms: 0, max_ms: 0 });
    const verdict = judge('ping', { loss_over: 10, avg_ms_over: 0.001 }, dead, null);
    assert.deepEqual([verdict.state, verdict.cause, verdict.responseMs], ['down', 'no reply (100% lost)', null]);
  });

  it('mtr: the first of the hops that lost the most is named', () => {
    const hop = (n: number, ip: string | null, loss: number) => ({ hop: n, ip, loss, avg_ms: ip ? 1 : null });
    const done = finished({ reached: true, hops: [hop(1, '192.0.2.1', 0), hop(2, null, 50), hop(3, '192.0.2.3', 50)] });
    assert.equal(judge('mtr', { loss_over_at_any_hop: 10 }, done, null).cause, 'hop 2 (no reply) lost 50%, over 10%');
    assert.equal(judge('mtr', { loss_over_at_any_hop: 50 }, done, null).state, 'up', 'over, not at');
  });
});
