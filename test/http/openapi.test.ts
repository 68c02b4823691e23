import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { API_RECORD_TYPES } from '../../src/dns/schema.ts';
import { serverUrl } from '../../src/http/openapi.ts';
import { buildTestApp } from '../support/app.ts';

type Json = Record<string, unknown>;

async function openApiDocument(headers: Record<string, string> = {}, env: Record<string, string> = {}) {
  const app = await buildTestApp(env);
  const response = await app.inject({ url: '/api/v1/openapi.json', headers, remoteAddress: '127.0.0.1' });
  await app.close();
  return response.json() as Json & { paths: Record<string, Record<string, Json>> };
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every example in the document, each with the JSON pointer of the schema it must satisfy:
 * a parameter's `example` and `examples[*].value` against its `schema`, a media type's likewise,
 * and a schema's own `examples` array against that schema.
 */
function examplesOf(node: unknown, pointer: string, found: { schema: string; value: unknown; at: string }[]) {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) examplesOf(item, `${pointer}/${index}`, found);
    return found;
  }
  if (node === null || typeof node !== 'object') return found;
  const object = node as Json;
  const holdsSchema = 'schema' in object && typeof object.schema === 'object';
  if (holdsSchema && 'example' in object)
    found.push({ schema: `${pointer}/schema`, value: object.example, at: pointer });
  if (holdsSchema && object.examples && typeof object.examples === 'object' && !Array.isArray(object.examples)) {
    for (const [name, example] of Object.entries(object.examples as Record<string, { value: unknown }>)) {
      found.push({ schema: `${pointer}/schema`, value: example.value, at: `${pointer}/examples/${name}` });
    }
  }
  if (!holdsSchema && Array.isArray(object.examples)) {
    object.examples.forEach((value, index) => {
      found.push({ schema: pointer, value, at: `${pointer}/examples/${index}` });
    });
  }
  for (const [key, value] of Object.entries(object)) {
    if (key === 'examples' || key === 'example') continue;
    examplesOf(value, `${pointer}/${escapePointer(key)}`, found);
  }
  return found;
}

test('issue 18: every example in the OpenAPI document is valid against the schema it belongs to', async () => {
  const document = await openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  formats.default(ajv);
  ajv.addSchema(document, 'openapi');
  const examples = examplesOf(document, '', []);
  assert.ok(examples.length >= 15, `found ${examples.length} examples`);
  const invalid = examples
    .map(({ schema, value, at }) => {
      const validate = ajv.getSchema(`openapi#${schema}`);
      assert.ok(validate, `schema at ${schema}`);
      return validate(value) ? undefined : `${at}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`;
    })
    .filter((problem) => problem !== undefined);
  assert.deepEqual(invalid, []);
});

test('issue 18: the document references its bearer scheme: optional on the API, absent on health and account operations, required (or a session) on monitors', async () => {
  const document = await openApiDocument();
  const schemes = Object.keys((document.components as { securitySchemes: Json }).securitySchemes);
  assert.deepEqual(document.security, [{}, { apiKey: [] }], 'global: no key, or a Bearer key');
  assert.equal(
    (document.components as { securitySchemes: Record<string, Json> }).securitySchemes.apiKey?.scheme,
    'bearer',
  );
  let keyed = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const effective = (operation.security ?? document.security) as Record<string, unknown>[];
      for (const requirement of effective)
        for (const name of Object.keys(requirement)) assert.ok(schemes.includes(name));
      const tags = operation.tags as string[] | undefined;
      // The API and the plain-text paths (limited like it, tag `text`) take a key; health and the account API do not.
      const usesKeys = (path.startsWith('/api/v1/') && !tags?.includes('account')) || tags?.includes('text') === true;
      const bearer = effective.some((requirement) => 'apiKey' in requirement);
      assert.equal(bearer, usesKeys, `${method} ${path}: a key ${usesKeys ? 'is' : 'is not'} accepted`);
      if (usesKeys) {
        // Monitors belong to an account: a key, or the dashboard's session.
        const accountOnly = tags?.includes('monitors') === true;
        assert.equal(
          effective.some((requirement) => Object.keys(requirement).length === 0),
          !accountOnly,
          `${method} ${path}: ${accountOnly ? 'a key or a session' : 'optional'}`,
        );
        if (accountOnly) assert.ok(effective.some((requirement) => 'sessionCookie' in requirement));
        keyed++;
      }
    }
  }
  assert.ok(keyed >= 8, `${keyed} keyed operations`);
});

test('issue 18: servers names the origin the request addressed, through trusted proxies, never a malformed Host', async () => {
  assert.deepEqual((await openApiDocument({ host: 'api.example.test:8443' })).servers, [
    { url: 'http://api.example.test:8443', description: 'This service' },
  ]);
  const proxied = await openApiDocument(
    { host: 'internal:8080', 'x-forwarded-host': 'netinfo.example.test', 'x-forwarded-proto': 'https' },
    { TRUST_PROXY: 'loopback' },
  );
  assert.equal((proxied.servers as { url: string }[])[0]?.url, 'https://netinfo.example.test');
  const untrusted = await openApiDocument({
    host: 'internal:8080',
    'x-forwarded-host': 'evil.test',
    'x-forwarded-proto': 'https',
  });
  assert.equal(
    (untrusted.servers as { url: string }[])[0]?.url,
    'http://internal:8080',
    'forwarding headers of an untrusted peer are ignored',
  );

  for (const [host, expected] of [
    ['[2001:db8::1]:8080', 'http://[2001:db8::1]:8080'],
    ['EXAMPLE.test', 'http://example.test'],
    ['evil.test/"><script>', '/'],
    ['a b', '/'],
    ['', '/'],
    [undefined, '/'],
  ] as const) {
    assert.equal(serverUrl(host, false), expected, String(host));
  }
});

test('issue 28: what redocly lint flagged stays fixed: the document names its licence, and every operation its 4xx answer', async () => {
  const document = await openApiDocument();
  // redocly's info-license rule.
  assert.deepEqual((document.info as Json).license, { name: 'MIT', identifier: 'MIT' });
  // redocly's operation-4xx-response rule: every route refuses unknown query parameters with a 400,
  // /healthz, /readyz and the text paths without a query of their own too.
  const without4xx: string[] = [];
  const without2xx: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const codes = Object.keys(operation.responses as Json);
      if (!codes.some((code) => code.startsWith('4'))) without4xx.push(`${method} ${path}`);
      if (!codes.some((code) => code.startsWith('2') || code.startsWith('3'))) without2xx.push(`${method} ${path}`);
    }
  }
  assert.deepEqual(without4xx, []);
  assert.deepEqual(without2xx, [], 'the added 400 does not replace a route’s default success answer');
  const healthz = document.paths['/healthz']?.get?.responses as Record<string, Json>;
  assert.match(String(healthz['400']?.description), /unknown query parameter/i);
});

test('issue 28: no optional parameter carries an example: Swagger UI\'s "Try it out" fills examples in and sends them', async () => {
  const document = await openApiDocument();
  const withExample: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const schema = (parameter.schema ?? {}) as Json;
        const example = 'example' in parameter || 'examples' in parameter || 'examples' in schema;
        if (parameter.required !== true && example) withExample.push(`${method} ${path} ${parameter.name}`);
      }
    }
  }
  assert.deepEqual(withExample, []);
});

test('issue 28: record_type is an enum of the contract’s names in the document', async () => {
  const document = await openApiDocument();
  const parameters = document.paths['/api/v1/dns']?.get?.parameters as Json[];
  const recordType = parameters.find((parameter) => parameter.name === 'record_type');
  assert.equal(recordType?.required, true);
  assert.deepEqual((recordType?.schema as Json | undefined)?.enum, [...API_RECORD_TYPES]);
});
