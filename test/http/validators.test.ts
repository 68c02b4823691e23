import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { numericProperties, strictValidators } from '../../src/http/validators.ts';

async function appWithStrictValidators() {
  const app = Fastify({ schemaController: { compilersFactory: { buildValidator: strictValidators() } } });
  const schema = {
    querystring: {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, maximum: 10 }, r: { type: 'number', minimum: -5 } },
    },
    body: { type: 'object', properties: { x: { type: 'number', maximum: 5 }, label: { type: 'string' } } },
  };
  app.post('/', { schema }, async (request) => ({ query: request.query, body: request.body }));
  await app.ready();
  return app;
}

describe('validators: finite numbers in query strings, exact types in JSON bodies', () => {
  it('in a query string, where Ajv would coerce them and skip its limits', async () => {
    const app = await appWithStrictValidators();
    // Digits alone can still overflow to Infinity.
    const huge = await app.inject({ method: 'POST', url: `/?n=${'9'.repeat(400)}`, payload: {} });
    assert.equal(huge.statusCode, 400);
    assert.match(huge.json().message, /querystring\/n must be finite/);
    const fine = await app.inject({ method: 'POST', url: '/?n=7', payload: { x: 2.5 } });
    assert.equal(fine.statusCode, 200);
    assert.deepEqual(fine.json(), { query: { n: 7 }, body: { x: 2.5 } });
    const tooBig = await app.inject({ method: 'POST', url: '/?n=11', payload: {} });
    assert.match(tooBig.json().message, /must be <= 10/, "Ajv's own errors come through unchanged");
    await app.close();
  });

  it('regression (issue 18): numbers in a query string are decimal, not whatever Number() reads', async () => {
    const app = await appWithStrictValidators();
    const query = async (search: string) => {
      const response = await app.inject({ method: 'POST', url: `/?${search}`, payload: {} });
      return { status: response.statusCode, body: response.json() };
    };
    for (const n of [
      '1e1',
      '0x5',
      '0b11',
      '0o7',
      '+5',
      '%205',
      '5%20',
      '5.',
      '5.0',
      '1_0',
      'Infinity',
      '1e999',
      '５',
    ]) {
      const { status, body } = await query(`n=${n}`);
      assert.equal(status, 400, n);
      assert.match(body.message, /querystring\/n must be a whole number written in decimal digits/, n);
    }
    const repeated = await query('n=2&n=0x2');
    assert.equal(repeated.status, 400, 'every value of a repeated parameter is checked');
    for (const r of ['1e1', '.5', '0x1', '+1']) {
      const { status, body } = await query(`r=${r}`);
      assert.equal(status, 400, r);
      assert.match(body.message, /querystring\/r must be a number written in decimal digits/, r);
    }
    for (const [search, expected] of [
      ['n=7', { n: 7 }],
      ['n=007', { n: 7 }],
      ['r=-2.25', { r: -2.25 }],
      ['r=3', { r: 3 }],
    ] as const) {
      const { status, body } = await query(search);
      assert.equal(status, 200, search);
      assert.deepEqual(body.query, expected, search);
    }
    const negative = await query('n=-1');
    assert.match(negative.body.message, /must be >= 1/, 'a minus sign is decimal: the limit speaks');
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
    assert.deepEqual(numericProperties(schema), [
      { name: 'a', kind: 'integer' },
      { name: 'b', kind: 'number' },
    ]);
    assert.deepEqual(numericProperties(undefined), []);
  });
});
