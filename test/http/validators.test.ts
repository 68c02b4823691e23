import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { finiteNumbersOnly, numericProperties } from '../../src/http/validators.ts';

async function appWithFiniteNumbers() {
  const app = Fastify({ schemaController: { compilersFactory: { buildValidator: finiteNumbersOnly() } } });
  const schema = {
    querystring: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 10 } } },
    body: { type: 'object', properties: { x: { type: 'number', maximum: 5 }, label: { type: 'string' } } },
  };
  app.post('/', { schema }, async (request) => ({ query: request.query, body: request.body }));
  await app.ready();
  return app;
}

describe('validators refuse numbers that are not finite', () => {
  it('in a query string, where Ajv would coerce them and skip its limits', async () => {
    const app = await appWithFiniteNumbers();
    for (const n of ['Infinity', '-Infinity', '1e999']) {
      const response = await app.inject({ method: 'POST', url: `/?n=${n}`, payload: {} });
      assert.equal(response.statusCode, 400, n);
      assert.match(response.json().message, /querystring\/n must be finite/, n);
    }
    const fine = await app.inject({ method: 'POST', url: '/?n=7', payload: { x: 2.5 } });
    assert.equal(fine.statusCode, 200);
    assert.deepEqual(fine.json(), { query: { n: 7 }, body: { x: 2.5 } });
    const tooBig = await app.inject({ method: 'POST', url: '/?n=11', payload: {} });
    assert.match(tooBig.json().message, /must be <= 10/, "Ajv's own errors come through unchanged");
    await app.close();
  });

  it('in a JSON body, where a string is coerced the same way', async () => {
    const app = await appWithFiniteNumbers();
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload });
    const coerced = await post('{"x":"Infinity"}');
    assert.equal(coerced.statusCode, 400);
    assert.match(coerced.json().message, /body\/x must be finite/);
    // A number that parses to Infinity is refused by Ajv itself (its type check wants finite numbers).
    const parsed = await post('{"x":1e999}');
    assert.equal(parsed.statusCode, 400);
    assert.match(parsed.json().message, /body\/x must be number/);
    await app.close();
  });

  it('numericProperties names integer and number properties, including type lists', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: ['number', 'null'] }, c: { type: 'string' }, d: {} },
    };
    assert.deepEqual(numericProperties(schema), ['a', 'b']);
    assert.deepEqual(numericProperties(undefined), []);
  });
});
