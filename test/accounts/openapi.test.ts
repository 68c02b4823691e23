import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAccountsApp } from '../support/accounts.ts';

test('the OpenAPI document describes the account API, its session security and the key format', async () => {
  const { app, close } = await buildAccountsApp();
  const document = (await app.inject({ url: '/api/v1/openapi.json' })).json();
  const operations = {
    '/api/v1/account/signup': ['post'],
    '/api/v1/account/login': ['post'],
    '/api/v1/account/logout': ['post'],
    '/api/v1/account': ['get'],
    '/api/v1/account/keys': ['get', 'post'],
    '/api/v1/account/keys/{id}': ['delete'],
  };
  for (const [path, methods] of Object.entries(operations)) {
    assert.deepEqual(
      Object.keys(document.paths[path] ?? {})
        .filter((method) => method !== 'head')
        .sort(),
      methods.sort(),
      path,
    );
    for (const method of methods) assert.deepEqual(document.paths[path][method].tags, ['account'], `${method} ${path}`);
  }
  const create = document.paths['/api/v1/account/keys'].post;
  assert.deepEqual(create.security, [{ sessionCookie: [], csrfToken: [] }]);
  assert.ok(create.responses['201'].content['application/json'].schema.properties.key);
  assert.ok(create.responses['403']);
  assert.deepEqual(document.paths['/api/v1/account/login'].post.security, []);
  assert.equal(document.components.securitySchemes.sessionCookie.in, 'cookie');
  assert.equal(document.components.securitySchemes.csrfToken.name, 'X-CSRF-Token');
  assert.match(document.info.description, /nk_\[0-9A-Za-z\]\{36\}/);
  assert.ok(document.tags.some((tag: { name: string }) => tag.name === 'account'));
  await close();
});
