import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findProblems, isSha1Signature, type ProblemInput, weakKey } from '../../src/tls/problems.ts';

const DAY = 86_400_000;
const now = Date.parse('2026-06-01T12:00:00Z');
const leaf = { name: 'a.example', key_type: 'EC', bits: 256, signature_algorithm: 'ecdsa-with-SHA256', anchor: false };
const intermediate = {
  name: 'Example CA',
  key_type: 'RSA',
  bits: 2048,
  signature_algorithm: 'sha256WithRSAEncryption',
  anchor: false,
};
const base: ProblemInput = {
  host: 'a.example',
  served: [leaf, intermediate],
  validFrom: new Date(now - 30 * DAY),
  validTo: new Date(now + 60 * DAY),
  hostnameMatch: true,
  names: ['a.example'],
  trust: 'anchored',
  lastIssuer: 'Example Root',
  endsInRoot: false,
  now,
};

test('findProblems: nothing to say about a good certificate', () => {
  assert.deepEqual(findProblems(base), []);
});

test('findProblems: each problem in one plain sentence', () => {
  const cases: { why: string; input: Partial<ProblemInput>; expected: string[] }[] = [
    {
      why: 'expired',
      input: { validTo: new Date(now - DAY) },
      expected: ['The certificate expired on 2026-05-31T12:00:00Z.'],
    },
    {
      why: 'expires within 14 days (13 days and a half)',
      input: { validTo: new Date(now + 13.5 * DAY) },
      expected: ['The certificate expires within 14 days, on 2026-06-15T00:00:00Z.'],
    },
    { why: 'exactly 14 days left is not within 14 days', input: { validTo: new Date(now + 14 * DAY) }, expected: [] },
    {
      why: 'not yet valid',
      input: { validFrom: new Date(now + DAY) },
      expected: ['The certificate is not valid yet: its validity starts on 2026-06-02T12:00:00Z.'],
    },
    {
      why: 'self-signed',
      input: { trust: 'self_signed', served: [leaf] },
      expected: ['The certificate is self-signed and not in the trust store.'],
    },
    {
      why: 'name mismatch',
      input: { hostnameMatch: false, names: ['b.example', 'c.example'] },
      expected: ['The certificate does not match the name a.example: it is for b.example, c.example.'],
    },
    {
      why: 'incomplete chain: the intermediate was not sent',
      input: { trust: 'unanchored', served: [leaf], lastIssuer: 'Example CA' },
      expected: [
        'The chain is incomplete: the certificates served do not reach a trusted root ("Example CA", the issuer of the last one, was not sent and is not in the trust store).',
      ],
    },
    {
      why: 'the chain ends in a root nobody trusts',
      input: { trust: 'unanchored', lastIssuer: 'Rogue Root', endsInRoot: true },
      expected: ['The chain is incomplete: it ends in "Rogue Root", a root that is not in the trust store.'],
    },
    {
      why: 'weak RSA key in the leaf',
      input: { served: [{ ...leaf, key_type: 'RSA', bits: 1024 }, intermediate] },
      expected: ['The certificate has a weak key: RSA 1024 bits.'],
    },
    {
      why: 'weak key in a chain certificate is named',
      input: { served: [leaf, { ...intermediate, bits: 1024 }] },
      expected: ['The chain certificate "Example CA" has a weak key: RSA 1024 bits.'],
    },
    {
      why: 'SHA-1 signature',
      input: { served: [{ ...leaf, signature_algorithm: 'sha1WithRSAEncryption' }, intermediate] },
      expected: ['The certificate is signed with SHA-1 (sha1WithRSAEncryption).'],
    },
    {
      why: "a trusted root's own SHA-1 self-signature is never checked, so not reported",
      input: { served: [leaf, { ...intermediate, signature_algorithm: 'sha1WithRSAEncryption', anchor: true }] },
      expected: [],
    },
  ];
  for (const { why, input, expected } of cases) assert.deepEqual(findProblems({ ...base, ...input }), expected, why);
});

test('findProblems: every problem at once, in a stable order', () => {
  const problems = findProblems({
    ...base,
    validTo: new Date(now - DAY),
    trust: 'self_signed',
    hostnameMatch: false,
    served: [{ ...leaf, key_type: 'RSA', bits: 1024, signature_algorithm: 'sha1WithRSAEncryption' }],
  });
  assert.deepEqual(
    problems.map((sentence) => sentence.split(' ').slice(0, 4).join(' ')),
    [
      'The certificate expired on',
      'The certificate is self-signed',
      'The certificate does not',
      'The certificate has a',
      'The certificate is signed',
    ],
  );
});

test('weakKey and isSha1Signature', () => {
  assert.equal(weakKey({ key_type: 'RSA', bits: 2048 }), null);
  assert.equal(weakKey({ key_type: 'RSA', bits: 2047 }), 'RSA 2047 bits');
  assert.equal(weakKey({ key_type: 'EC', bits: 224 }), 'EC 224 bits');
  assert.equal(weakKey({ key_type: 'EC', bits: 256 }), null);
  assert.equal(weakKey({ key_type: 'Ed25519', bits: null }), null);
  for (const name of ['sha1WithRSAEncryption', 'ecdsa-with-SHA1', 'dsaWithSHA1', 'RSA-SHA1']) {
    assert.equal(isSha1Signature(name), true, name);
  }
  for (const name of ['sha256WithRSAEncryption', 'ecdsa-with-SHA256', 'sha512WithRSAEncryption', null]) {
    assert.equal(isSha1Signature(name), false, String(name));
  }
});
