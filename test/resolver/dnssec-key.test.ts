import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dsText, KEY_FILE, loadOrCreateZoneKey } from '../../src/resolver/dnssec.ts';

test('the zone key is made once and kept in DATA_DIR, readable by the service only, so the published DS stays valid', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'netinfo-zone-key-'));
  try {
    const first = loadOrCreateZoneKey(dir);
    const again = loadOrCreateZoneKey(dir);
    assert.deepEqual(again.publicKey, first.publicKey);
    assert.equal(again.keyTag, first.keyTag);
    assert.equal(first.publicKey.length, 64);
    assert.equal(statSync(path.join(dir, KEY_FILE)).mode & 0o777, 0o600);
    assert.match(dsText('probe.test', first), new RegExp(`^probe\\.test\\. IN DS ${first.keyTag} 13 2 [0-9A-F]{64}$`));
    const other = mkdtempSync(path.join(tmpdir(), 'netinfo-zone-key-'));
    try {
      assert.notDeepEqual(loadOrCreateZoneKey(other).publicKey, first.publicKey);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
