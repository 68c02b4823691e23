import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY_BODY_LENGTH, API_KEY_PREFIX } from '../http/api-key-shape.ts';

/**
 * Modelled on GitHub's tokens so leaked keys are easy to find and cheap to reject: `nk_` names the
 * issuer for secret scanners (the underscore keeps a double-click selecting the whole key); 30
 * uniform base62 characters give 178 bits; a CRC-32 checksum in 6 base62 characters fails a typo
 * or a made-up key without touching storage, and lets a scanner confirm a candidate.
 */
export { API_KEY_PREFIX };
export const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_BODY_LENGTH}}$`);
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
/** Characters of the random part shown in listings, after the prefix. */
const DISPLAY_LENGTH = 6;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 characters by rejection sampling (bytes 248-255 would favour the first 8). */
function randomBase62(length: number, random: (size: number) => Buffer): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function base62Checksum(randomPart: string): string {
  let value = crc32(randomPart);
  let digits = '';
  do {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  } while (value > 0);
  return digits.padStart(CHECKSUM_LENGTH, '0');
}

export function generateApiKey(random: (size: number) => Buffer = randomBytes): string {
  const randomPart = randomBase62(RANDOM_LENGTH, random);
  return `${API_KEY_PREFIX}${randomPart}${base62Checksum(randomPart)}`;
}

/** Shape and checksum only: true does not mean the key exists. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!API_KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(API_KEY_PREFIX.length);
  return base62Checksum(body.slice(0, RANDOM_LENGTH)) === body.slice(RANDOM_LENGTH);
}

export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + DISPLAY_LENGTH);
}

/** The Bearer scheme (any case) and one token; anything else is null, which the caller answers with 401. */
export function bearerToken(authorization: string): string | null {
  const match = /^Bearer +([^\s]+) *$/i.exec(authorization);
  return match?.[1] ?? null;
}
