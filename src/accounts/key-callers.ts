import { apiErrors } from '../http/errors.ts';
import { type Caller, type CallerResolver, publicCaller } from '../limits/caller.ts';
import { bearerToken, isWellFormedApiKey } from './api-key-format.ts';
import type { KeyService } from './key-service.ts';

/**
 * Authorization -> caller, in a fixed order from cheapest to dearest: no header is public; the
 * scheme, shape and checksum are checked without touching storage; only then the key is looked up
 * (cache first). Each step has its own 401, saying what to fix; the lookup's has one message for a
 * key that never existed and one that was revoked, so a guesser learns nothing the public format
 * check does not already tell. Only the holder of a real key learns that its account is disabled.
 */
export function createApiKeyCallerResolver(keys: KeyService): CallerResolver {
  async function keyOwner(authorization: string): Promise<Caller> {
    const key = bearerToken(authorization);
    if (key === null) throw apiErrors.notBearerAuthorization();
    if (!isWellFormedApiKey(key)) throw apiErrors.malformedApiKey();
    const owner = await keys.verify(key);
    if (!owner) throw apiErrors.unknownApiKey();
    if (owner.disabled) throw apiErrors.apiKeyOfDisabledAccount();
    return { tier: owner.plan, subject: `account:${owner.accountId}`, accountId: owner.accountId };
  }
  return {
    // Keyless requests (most public traffic) are answered without a promise.
    resolve: (clientIp, authorization) =>
      authorization === undefined ? publicCaller(clientIp) : keyOwner(authorization),
  };
}
