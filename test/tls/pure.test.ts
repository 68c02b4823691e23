import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSubjectAltNames, presentAltNames } from '../../src/tls/alt-names.ts';
import { daysRemaining, findValidationProblems, type ValidationInput } from '../../src/tls/validation.ts';

test('subject alternative names: a quoted value cannot pass for two names', () => {
  assert.deepEqual(parseSubjectAltNames('DNS:a.example, DNS:b.example, IP Address:192.0.2.1'), [
    { type: 'DNS', value: 'a.example' },
    { type: 'DNS', value: 'b.example' },
    { type: 'IP Address', value: '192.0.2.1' },
  ]);
  // Node writes a value with a comma as a JSON string (CVE-2021-44532).
  assert.deepEqual(parseSubjectAltNames('DNS:"evil.example, DNS:bank.example", DNS:x.example'), [
    { type: 'DNS', value: 'evil.example, DNS:bank.example' },
    { type: 'DNS', value: 'x.example' },
  ]);
  assert.deepEqual(
    presentAltNames('DNS:a.example, email:admin@a.example, URI:https://a.example/, IP Address:2001:DB8:0:0:0:0:0:1'),
    ['a.example', 'email:admin@a.example', 'URI:https://a.example/', '2001:DB8:0:0:0:0:0:1'],
  );
  assert.deepEqual(presentAltNames(undefined), []);
});

const base: ValidationInput = {
  host: 'a.example',
  chainError: null,
  chainTrust: 'anchored',
  nameError: null,
  issuer: 'Example CA',
  validFrom: new Date('2026-01-01T00:00:00Z'),
  validTo: new Date('2026-12-31T00:00:00Z'),
  names: ['a.example'],
  now: Date.parse('2026-06-01T00:00:00Z'),
};
const codes = (input: Partial<ValidationInput>) =>
  findValidationProblems({ ...base, ...input }).map((problem) => problem.code);

test('validation: each check on its own, all reasons listed, trust first', () => {
  assert.deepEqual(codes({}), []);
  assert.deepEqual(codes({ now: Date.parse('2026-12-31T00:00:00Z') }), ['expired']); // validTo itself is past
  assert.deepEqual(codes({ now: Date.parse('2025-12-31T23:59:59Z') }), ['not_yet_valid']);
  assert.deepEqual(codes({ nameError: 'Host: b.example. is not in the cert altnames' }), ['name_mismatch']);
  assert.deepEqual(codes({ chainError: 'DEPTH_ZERO_SELF_SIGNED_CERT', chainTrust: 'self_signed' }), ['self_signed']);
  assert.deepEqual(codes({ chainError: 'SELF_SIGNED_CERT_IN_CHAIN', chainTrust: 'unanchored' }), ['unknown_issuer']);
  assert.deepEqual(codes({ chainError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', chainTrust: 'unanchored' }), [
    'unknown_issuer',
  ]);
  assert.deepEqual(codes({ chainError: 'CERT_SIGNATURE_FAILURE' }), ['untrusted_chain']);
  // OpenSSL reports the date first; the independent walk finds the trust problem behind it.
  assert.deepEqual(
    codes({
      chainError: 'CERT_HAS_EXPIRED',
      chainTrust: 'self_signed',
      now: Date.parse('2027-01-01T00:00:00Z'),
      nameError: 'x',
    }),
    ['self_signed', 'expired', 'name_mismatch'],
  );
  // An intermediate that expired while the server's certificate did not.
  assert.deepEqual(
    findValidationProblems({ ...base, chainError: 'CERT_HAS_EXPIRED' }).map((problem) => problem.message),
    ['a certificate in the chain has expired'],
  );
});

test('days remaining: rounded down, negative as soon as expired', () => {
  const validTo = new Date('2026-06-10T12:00:00Z');
  assert.equal(daysRemaining(validTo, Date.parse('2026-06-01T12:00:00Z')), 9);
  assert.equal(daysRemaining(validTo, Date.parse('2026-06-10T11:00:00Z')), 0);
  assert.equal(daysRemaining(validTo, Date.parse('2026-06-10T13:00:00Z')), -1);
  assert.equal(daysRemaining(validTo, Date.parse('2026-06-12T13:00:00Z')), -3);
});
