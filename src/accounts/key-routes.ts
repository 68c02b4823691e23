import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import type { ApiKeyRecord } from '../storage/repository.ts';
import { requireCsrfToken, requireSession, throwIfInvalid } from './account-http.ts';
import {
  KEY_BODY_LIMIT_BYTES,
  KEY_NAME_MAX_LENGTH,
  keyListRouteSchema,
  newKeyRouteSchema,
  revokeKeyRouteSchema,
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

export const keyRoutes: FastifyPluginAsyncTypebox<{ accounts: Accounts }> = async (scope, { accounts }) => {
  scope.get(PREFIX, { schema: keyListRouteSchema }, async (request) => {
    const session = await requireSession(accounts, request);
    return { keys: (await accounts.keys.list(session.account.id)).map(keyView) };
  });

  scope.post(
    PREFIX,
    { attachValidation: true, bodyLimit: KEY_BODY_LIMIT_BYTES, schema: newKeyRouteSchema },
    async (request, reply) => {
      const session = await requireSession(accounts, request);
      requireCsrfToken(accounts, request, session);
      throwIfInvalid(request, {
        name: { what: 'key name', rule: `must be 1 to ${KEY_NAME_MAX_LENGTH} characters of text` },
      });
      const name = cleanKeyName(request.body.name);
      const created = await accounts.keys.create(session.account, name);
      if (!created.ok) throw apiErrors.keyQuotaReached(session.account.plan, created.quota);
      request.log.info({ accountId: session.account.id, keyId: created.record.id }, 'API key created');
      return reply.code(201).send({ ...keyView(created.record), key: created.key });
    },
  );

  scope.delete(`${PREFIX}/:id`, { attachValidation: true, schema: revokeKeyRouteSchema }, async (request, reply) => {
    const session = await requireSession(accounts, request);
    requireCsrfToken(accounts, request, session);
    throwIfInvalid(request, {});
    const { id } = request.params;
    if (!(await accounts.keys.revoke(session.account.id, id))) throw apiErrors.keyNotFound();
    request.log.info({ accountId: session.account.id, keyId: id }, 'API key revoked');
    return reply.code(204).send();
  });
};
