import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { numericProperties, strictValidators } from '../../src/http/validators.ts';

async function appWithStrictValidators() {
  const app = Fastify({ schemaController: { compilersFactory: { buildValidator: strictValidators() } } });
  const schema = {
    querystring: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 10 } } },
    body: { type: 'object', properties: { x: { type: 'number', maximum: 5 }, label: { type: 'string' } } },
  };
  app.post('/', { schema }, async (request) => ({ query: request.query, body: request.body }));
  await app.ready();
  return app;
}

describe('validators: finite numbers in query strings, exact types in JSON bodies', () => {
  it('in a query string, where Ajv would coerce them and skip its limits', async () => {
    const app = await appWithStrictValidators();
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

  it('a JSON body has the types its schema says: nothing is coerced', async () => {
    const app = await appWithStrictValidators();
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload });
    for (const [payload, message] of [
      ['{"x":"2"}', /body\/x must be number/],
      ['{"x":"Infinity"}', /body\/x must be number/],
      ['{"x":1e999}', /body\/x must be number/],
      ['{"label":5}', /body\/label must be string/],
      ['{"label":true}', /body\/label must be string/],
    ] as const) {
      const response = await post(payload);
      assert.equal(response.statusCode, 400, payload);
      assert.match(response.json().message, message, payload);
    }
    const fine = await post('{"x":2,"label":"five"}');
    assert.deepEqual(fine.json().body, { x: 2, label: 'five' });
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
