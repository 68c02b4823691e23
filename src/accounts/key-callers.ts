import { apiErrors } from '../http/errors.ts';
import { type Caller, type CallerResolver, publicCaller } from '../limits/caller.ts';
import { bearerToken, isWellFormedApiKey } from './api-key-format.ts';
import type { KeyService } from './key-service.ts';

/**
 * Authorization -> caller, in a fixed order from cheapest to dearest: no header is public; the
 * scheme, shape and checksum are checked without touching storage; only then the key is looked up
 * (cache first). Every failure is the same 401, so it does not tell a guesser which step failed.
 */
export function createApiKeyCallerResolver(keys: KeyService): CallerResolver {
  async function keyOwner(authorization: string): Promise<Caller> {
    const key = bearerToken(authorization);
    if (key === null || !isWellFormedApiKey(key)) throw apiErrors.invalidApiKey();
    const owner = await keys.verify(key);
    if (!owner) throw apiErrors.invalidApiKey();
    return { tier: owner.plan, subject: `account:${owner.accountId}`, accountId: owner.accountId };
  }
  return {
    // Keyless requests (most public traffic) are answered without a promise.
    resolve: (clientIp, authorization) =>
      authorization === undefined ? publicCaller(clientIp) : keyOwner(authorization),
  };
}
