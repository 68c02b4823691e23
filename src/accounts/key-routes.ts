import type { FastifyInstance } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import type { ApiKeyRecord } from '../storage/repository.ts';
import { requireCsrfToken, requireSession, throwIfInvalid } from './account-http.ts';
import {
  accountError,
  accountErrors,
  accountResponse,
  CreatedKey,
  csrfErrors,
  KEY_NAME_MAX_LENGTH,
  KeyIdParams,
  KeyList,
  NewKeyRequest,
  sessionErrors,
} from './account-schemas.ts';
import type { Accounts } from './accounts.ts';

const PREFIX = '/api/v1/account/keys';
export const iso = (ms: number) => new Date(ms).toISOString();

export function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.displayPrefix,
    created_at: iso(key.createdAt),
    last_used_at: key.lastUsedAt === null ? null : iso(key.lastUsedAt),
  };
}

/**
 * A key name: trimmed, 1-64 characters, no control or format characters (it is shown in pages and
 * listings, where a right-to-left override or a zero-width space would disguise it).
 */
export function cleanKeyName(raw: string): string {
  const name = raw.trim();
  if (name === '' || [...name].length > KEY_NAME_MAX_LENGTH || /[\p{Cc}\p{Cf}]/u.test(name)) {
    throw apiErrors.invalidField(
      'key name',
      `must be 1 to ${KEY_NAME_MAX_LENGTH} characters, without control or invisible (format) characters`,
    );
  }
  return name;
}

export function registerKeyRoutes(scope: FastifyInstance, accounts: Accounts): void {
  scope.get(
    PREFIX,
    {
      schema: {
        summary: 'The account’s active API keys (never the keys themselves).',
        security: [{ sessionCookie: [] }],
        tags: ['account'],
        response: { 200: accountResponse(KeyList, 'Active keys, oldest first.'), ...sessionErrors, ...accountErrors },
      },
    },
    async (request) => {
      const session = await requireSession(accounts, request);
      return { keys: (await accounts.keys.list(session.account.id)).map(keyView) };
    },
  );

  scope.post(
    PREFIX,
    {
      attachValidation: true,
      bodyLimit: 4096,
      schema: {
        summary: 'Create an API key: the answer is the only time the key is shown.',
        security: [{ sessionCookie: [], csrfToken: [] }],
        description:
          'Needs the session’s X-CSRF-Token. Free accounts may have 5 active keys, Pro 20; one more is a 403 naming the quota.',
        tags: ['account'],
        body: NewKeyRequest,
        response: {
          201: accountResponse(CreatedKey, 'The new key, with `key` shown this once.'),
          ...sessionErrors,
          403: accountError('Key quota reached (the body carries `quota`), or the request looks cross-site.'),
          ...accountErrors,
        },
      },
    },
    async (request, reply) => {
      const session = await requireSession(accounts, request);
      requireCsrfToken(accounts, request, session);
      throwIfInvalid(request, {
        name: { what: 'key name', rule: `must be 1 to ${KEY_NAME_MAX_LENGTH} characters of text` },
      });
      const name = cleanKeyName((request.body as { name: string }).name);
      const created = await accounts.keys.create(session.account, name);
      if (!created.ok) throw apiErrors.keyQuotaReached(session.account.plan, created.quota);
      request.log.info({ accountId: session.account.id, keyId: created.record.id }, 'API key created');
      return reply.code(201).send({ ...keyView(created.record), key: created.key });
    },
  );

  scope.delete(
    `${PREFIX}/:id`,
    {
      attachValidation: true,
      schema: {
        summary: 'Revoke an API key: refused (401) from the next request on.',
        security: [{ sessionCookie: [], csrfToken: [] }],
        description: 'Needs the session’s X-CSRF-Token.',
        tags: ['account'],
        params: KeyIdParams,
        response: {
          204: { description: 'Revoked.', type: 'null' },
          ...sessionErrors,
          ...csrfErrors,
          404: accountError('No active key of this account has this id.'),
          ...accountErrors,
        },
      },
    },
    async (request, reply) => {
      const session = await requireSession(accounts, request);
      requireCsrfToken(accounts, request, session);
      throwIfInvalid(request, {});
      const { id } = request.params as { id: string };
      if (!(await accounts.keys.revoke(session.account.id, id))) throw apiErrors.keyNotFound();
      request.log.info({ accountId: session.account.id, keyId: id }, 'API key revoked');
      return reply.code(204).send();
    },
  );
}
