import { apiErrors } from '../http/errors.ts';

/**
 * A yes/no query parameter as the DoH JSON APIs of Google and Cloudflare take `do` and `cd`:
 * absent or empty is false, `1` or `true` true, `0` or `false` false (case-insensitive); anything
 * else is a 400 naming the parameter.
 */
export function parseFlagParam(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const text = value.trim().toLowerCase();
  if (text === '' || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw apiErrors.invalidParameter(name, 'must be true, false, 1 or 0');
}
