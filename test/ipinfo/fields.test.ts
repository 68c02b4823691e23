import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { IpInfoBody } from '../../src/ipinfo/answers/json-schema.ts';
import { fieldPaths, parseFields, pickFields } from '../../src/ipinfo/fields.ts';

test('field names are the schema property paths, parents first', () => {
  const schema = Type.Object({
    a: Type.String(),
    b: Type.Object({ c: Type.Number(), d: Type.Object({ e: Type.Boolean() }) }),
  });
  assert.deepEqual(fieldPaths(schema), ['a', 'b', 'b.c', 'b.d', 'b.d.e']);
  const names = fieldPaths(IpInfoBody);
  for (const name of ['ip', 'hostname', 'location.countryCode', 'network.asn', 'security.sources', 'mappedFrom']) {
    assert.ok(names.includes(name), name);
  }
  assert.ok(!names.includes('location.nope'));
});

test('fields: a list of valid names, or the names no answer has', () => {
  const valid = new Set(['ip', 'location', 'location.city', 'network', 'network.asn']);
  assert.deepEqual(parseFields(' ip, location.city ,ip', valid), { ok: true, paths: [['ip'], ['location', 'city']] });
  assert.deepEqual(parseFields('ip,location.town,cty', valid), { ok: false, unknown: ['location.town', 'cty'] });
  assert.deepEqual(parseFields(' , ', valid), { ok: false, unknown: [''] }, 'an empty list is no selection');
});

test('pickFields keeps the selected paths the answer has, and nothing else', () => {
  const answer = {
    ip: '81.2.69.142',
    location: { city: 'London', country: 'United Kingdom' },
    network: { asn: 'AS1' },
    security: { bogon: false, sources: [] },
  };
  assert.deepEqual(pickFields(answer, [['ip'], ['location', 'city']]), {
    ip: '81.2.69.142',
    location: { city: 'London' },
  });
  assert.deepEqual(
    pickFields(answer, [['location', 'city'], ['location']]),
    { location: answer.location },
    'whole wins',
  );
  assert.deepEqual(pickFields(answer, [['location'], ['location', 'city']]), { location: answer.location });
  assert.deepEqual(pickFields(answer, [['hostname'], ['location', 'region']]), {}, 'unknown for this address: absent');
  assert.deepEqual(pickFields(answer, [['ip', 'x']]), {}, 'a path through a string is absent');
  assert.deepEqual(answer.location, { city: 'London', country: 'United Kingdom' }, 'the answer is not changed');
});
