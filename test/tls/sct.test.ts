import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { derChildren, readDer } from '../../src/tls/der.ts';
import { countEmbeddedScts, countTlsList } from '../../src/tls/sct.ts';
import { createTestPki, opensslAvailable, type TestPki } from '../support/test-pki.ts';
import { sctExtensionLine, sctList } from './sct-list.ts';

test('countTlsList: entries counted; a length that does not add up is null', () => {
  assert.equal(countTlsList(sctList(0)), 0);
  assert.equal(countTlsList(sctList(1)), 1);
  assert.equal(countTlsList(sctList(3)), 3);
  const three = sctList(3);
  assert.equal(countTlsList(three.subarray(0, three.length - 1)), null, 'truncated');
  const inflated = Buffer.from(three);
  inflated.writeUInt16BE(three.length, 0);
  assert.equal(countTlsList(inflated), null, 'outer length past the end');
  const short = Buffer.from([0, 3, 0, 1, 0]);
  assert.equal(countTlsList(short), null, 'an entry too short to be an SCT');
});

test('readDer: lengths in short and long form, and overruns refused', () => {
  assert.deepEqual(readDer(Uint8Array.from([0x04, 0x02, 0xaa, 0xbb]), 0), { tag: 4, start: 2, end: 4 });
  const long = Uint8Array.from([0x30, 0x81, 0x80, ...new Uint8Array(128)]);
  assert.deepEqual(readDer(long, 0), { tag: 0x30, start: 3, end: 131 });
  assert.throws(() => readDer(Uint8Array.from([0x04, 0x05, 0x00]), 0), /past the end/);
  assert.throws(() => readDer(Uint8Array.from([0x30, 0x80]), 0), /indefinite/);
  const parent = Uint8Array.from([0x30, 0x04, 0x02, 0x05, 0x00, 0x00]);
  assert.throws(() => derChildren(parent, readDer(parent, 0)), /overruns|past the end/);
});

const skip = opensslAvailable() ? false : 'the openssl command is not installed';

describe('countEmbeddedScts on certificates made by openssl', { skip }, () => {
  let pki: TestPki;
  before(() => {
    pki = createTestPki();
  });
  after(() => pki?.remove());
  const make = (name: string, extraExtensions: string[]) => {
    const now = Date.now();
    return pki.issue(name, {
      commonName: `${name}.tls.test`,
      altNames: [`${name}.tls.test`],
      key: 'ec-p256',
      notBefore: new Date(now - 86_400_000),
      notAfter: new Date(now + 86_400_000 * 30),
      extraExtensions,
    });
  };

  test('counts the SCTs openssl itself reads in the extension', () => {
    for (const count of [1, 2, 3]) {
      const certificate = make(`sct${count}`, [sctExtensionLine(sctList(count))]);
      const text = execFileSync('openssl', ['x509', '-in', certificate.certPath, '-noout', '-text'], {
        encoding: 'utf8',
      });
      const opensslCount = text.split('Signed Certificate Timestamp:').length - 1;
      assert.equal(opensslCount, count, 'openssl reads the list made here');
      assert.equal(countEmbeddedScts(new X509Certificate(certificate.certPem).raw), count);
    }
  });

  test('0 without the extension, null when its list is malformed', () => {
    const plain = make('nosct', []);
    assert.equal(countEmbeddedScts(new X509Certificate(plain.certPem).raw), 0);
    const list = sctList(2);
    const broken = make('badsct', [sctExtensionLine(list.subarray(0, list.length - 5))]);
    assert.equal(countEmbeddedScts(new X509Certificate(broken.certPem).raw), null);
  });

  test('a certificate that is not DER gives null, never a throw', () => {
    assert.equal(countEmbeddedScts(Uint8Array.from([0x30, 0x82, 0xff])), null);
  });
});
