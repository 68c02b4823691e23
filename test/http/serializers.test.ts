import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilingOncePerSchema } from '../../src/http/serializers.ts';

const route = (schema: object, url = '/a') => ({ method: 'GET', url, httpStatus: '200', schema });
const shared = { Name: { $id: 'Name', type: 'string' } };

describe('response serializers compiled once per schema', () => {
  it('reuses a serializer for the same schema across routes and plugin contexts', () => {
    const factory = compilingOncePerSchema();
    const schema = { type: 'object', properties: { name: { $ref: 'Name' } } };
    const first = factory(shared, undefined)(route(schema, '/a'));
    const second = factory(structuredClone(shared), undefined)(route(schema, '/b'));
    assert.equal(second, first);
    assert.equal(first({ name: 'x', dropped: 1 }), '{"name":"x"}');
  });

  it('compiles separately for another schema, or other shared schemas', () => {
    const factory = compilingOncePerSchema();
    const schema = { type: 'object', properties: { name: { $ref: 'Name' } } };
    const compile = factory(shared, undefined);
    const other = { type: 'object', properties: { id: { type: 'integer' } } };
    assert.notEqual(compile(route(other)), compile(route(schema)));
    assert.equal(compile(route(other))({ id: 7 }), '{"id":7}');
    const numbered = factory({ Name: { $id: 'Name', type: 'integer' } }, undefined)(route(schema));
    assert.notEqual(numbered, compile(route(schema)));
    assert.equal(numbered({ name: 7 }), '{"name":7}');
  });
});
