import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { parsePortRanges, portAllowed } from '../../src/httpcheck/config.ts';

describe('HTTP_CHECK_PORTS', () => {
  it('defaults to 80, 443 and 1024-65535', () => {
    const ranges = loadConfig({}).httpCheckPorts;
    assert.deepEqual(ranges, [
      [80, 80],
      [443, 443],
      [1024, 65535],
    ]);
    for (const port of [80, 443, 1024, 8080, 65535]) assert.equal(portAllowed(port, ranges), true, String(port));
    for (const port of [22, 25, 81, 442, 1023]) assert.equal(portAllowed(port, ranges), false, String(port));
  });

  it('reads ports and ranges, spaces allowed', () => {
    assert.deepEqual(parsePortRanges(' 8080 , 9000-9010,443'), [
      [8080, 8080],
      [9000, 9010],
      [443, 443],
    ]);
  });

  it('stops the start on a bad value, naming the variable', () => {
    for (const raw of ['0', '70000', '90-80', 'http', '80,,x', '1-2-3', ' , ']) {
      assert.throws(() => loadConfig({ HTTP_CHECK_PORTS: raw }), /HTTP_CHECK_PORTS: /, raw);
    }
    assert.throws(() => loadConfig({ HTTP_CHECK_MAX_BODY_BYTES: '-1' }), /HTTP_CHECK_MAX_BODY_BYTES: /);
    assert.throws(() => loadConfig({ HTTP_CHECK_TIMEOUT_MS: '50' }), /HTTP_CHECK_TIMEOUT_MS: /);
  });
});
