import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildClientHello, readServerAnswer, TLS_VERSIONS } from '../../src/tls/client-hello.ts';

const random = new Uint8Array(32).fill(7);
const sessionId = new Uint8Array(32).fill(9);

/** A ServerHello record: `version` in the legacy field, and supported_versions when `selected` is given. */
function serverHello(version: number, selected?: number): Buffer {
  const extensions = selected === undefined ? [] : [0x00, 0x2b, 0x00, 0x02, selected >> 8, selected & 0xff];
  const body = [
    version >> 8,
    version & 0xff,
    ...new Array(32).fill(1),
    0, // no session id
    0xc0,
    0x2f,
    0,
    ...(extensions.length > 0 ? [0, extensions.length, ...extensions] : []),
  ];
  const handshake = [2, 0, body.length >> 8, body.length & 0xff, ...body];
  return Buffer.from([0x16, 0x03, 0x03, handshake.length >> 8, handshake.length & 0xff, ...handshake]);
}

test('buildClientHello: a handshake record whose lengths add up, offering the version asked', () => {
  for (const version of TLS_VERSIONS) {
    const hello = buildClientHello(version, 'a.example', random, sessionId);
    assert.equal(hello[0], 0x16, 'a handshake record');
    assert.equal(hello.readUInt16BE(3), hello.length - 5, 'record length');
    assert.equal(hello[5], 1, 'a ClientHello');
    assert.equal((hello[6] as number) * 65536 + hello.readUInt16BE(7), hello.length - 9, 'handshake length');
    const legacy = hello.readUInt16BE(9);
    assert.equal(legacy, { TLSv1: 0x0301, 'TLSv1.1': 0x0302, 'TLSv1.2': 0x0303, 'TLSv1.3': 0x0303 }[version], version);
    assert.ok(hello.includes(Buffer.from('a.example')), `${version}: SNI sent`);
    // supported_versions (0x002b) offering 0x0304 only, and only in the TLSv1.3 hello.
    const supportedVersions = Buffer.from([0x00, 0x2b, 0x00, 0x03, 0x02, 0x03, 0x04]);
    assert.equal(hello.includes(supportedVersions), version === 'TLSv1.3', version);
  }
  assert.ok(
    buildClientHello('TLSv1.2', null, random, sessionId).length <
      buildClientHello('TLSv1.2', 'a.example', random, sessionId).length,
    'no server_name extension without a name',
  );
});

test('readServerAnswer: the version chosen, an alert, garbage, or wait for more', () => {
  assert.deepEqual(
    readServerAnswer(serverHello(0x0301)),
    { kind: 'hello', version: 0x0301 },
    'TLSv1 without extensions',
  );
  assert.deepEqual(
    readServerAnswer(serverHello(0x0303, 0x0304)),
    { kind: 'hello', version: 0x0304 },
    'supported_versions wins',
  );
  // A HelloRetryRequest is a ServerHello with a fixed random; it names the version the same way.
  assert.deepEqual(readServerAnswer(serverHello(0x0303, 0x0304)).kind, 'hello');
  assert.deepEqual(readServerAnswer(Buffer.from([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46])), {
    kind: 'alert',
    description: 70,
  });
  const hello = serverHello(0x0302);
  for (let cut = 0; cut < hello.length; cut++) {
    assert.deepEqual(readServerAnswer(hello.subarray(0, cut)), { kind: 'incomplete' }, `cut at ${cut}`);
  }
  // The same ServerHello split over two records.
  const handshake = hello.subarray(5);
  const split = Buffer.concat([
    Buffer.from([0x16, 0x03, 0x02, 0x00, 0x10]),
    handshake.subarray(0, 16),
    Buffer.from([0x16, 0x03, 0x02, 0x00, handshake.length - 16]),
    handshake.subarray(16),
  ]);
  assert.deepEqual(readServerAnswer(split), { kind: 'hello', version: 0x0302 });
  assert.deepEqual(readServerAnswer(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n')), {
    kind: 'garbage',
    reason: 'not a TLS record',
  });
  const certificateFirst = Buffer.from([0x16, 0x03, 0x03, 0x00, 0x04, 0x0b, 0x00, 0x00, 0x00]);
  assert.equal(readServerAnswer(certificateFirst).kind, 'garbage');
  // A ServerHello that claims 1 MiB is refused at once rather than awaited.
  assert.deepEqual(readServerAnswer(Buffer.from([0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x10, 0x00, 0x00])), {
    kind: 'garbage',
    reason: 'a ServerHello too long',
  });
  const truncated = serverHello(0x0303).subarray(0, 20);
  truncated.writeUInt16BE(15, 3);
  truncated.writeUInt8(11, 8);
  assert.deepEqual(readServerAnswer(truncated), { kind: 'garbage', reason: 'a malformed ServerHello' });
});
