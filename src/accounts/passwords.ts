import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * argon2id with OWASP's second recommended setting (19 MiB, 2 passes, 1 lane). Measured on this
 * project's 2-core machine: about 25-40 ms per hash (64 MiB x 2 took ~125 ms, over the 100 ms we
 * allow a login). More lanes did not help: Node computes them on one thread-pool thread. The
 * parameters are stored in each hash (PHC string), so raising them later rehashes at next login.
 */
export const ARGON2_PARAMETERS = Object.freeze({ memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 });
const SALT_BYTES = 16;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * NFKC, as NIST SP 800-63B advises, so the same password typed on another keyboard or OS matches.
 * Length counts code points after normalisation.
 */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

/** Null when acceptable, else what to fix. */
export function passwordProblem(password: string): string | null {
  const length = [...normalisePassword(password)].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    return `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`;
  }
  return null;
}

interface Argon2Hash {
  memory: number;
  passes: number;
  parallelism: number;
  salt: Buffer;
  hash: Buffer;
}

function derive(password: string, salt: Buffer, parameters: Omit<Argon2Hash, 'salt' | 'hash'>, tagLength: number) {
  return new Promise<Buffer>((resolve, reject) => {
    argon2(
      'argon2id',
      { message: normalisePassword(password), nonce: salt, tagLength, ...parameters },
      (error, derived) => (error ? reject(error) : resolve(derived)),
    );
  });
}

const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '');

/** `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (the PHC format other argon2 libraries read). */
export async function hashPassword(password: string): Promise<string> {
  const { memory, passes, parallelism, tagLength } = ARGON2_PARAMETERS;
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, { memory, passes, parallelism }, tagLength);
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${b64(salt)}$${b64(hash)}`;
}

function parseHash(encoded: string): Argon2Hash | null {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(encoded);
  if (!match) return null;
  const [, memory, passes, parallelism, salt, hash] = match;
  return {
    memory: Number(memory),
    passes: Number(passes),
    parallelism: Number(parallelism),
    salt: Buffer.from(salt ?? '', 'base64'),
    hash: Buffer.from(hash ?? '', 'base64'),
  };
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (!parsed) return false;
  const derived = await derive(password, parsed.salt, parsed, parsed.hash.length);
  return timingSafeEqual(derived, parsed.hash);
}

/** True when the hash was made with other parameters than today's (upgrade it at login). */
export function needsRehash(encoded: string): boolean {
  const parsed = parseHash(encoded);
  return (
    parsed === null ||
    parsed.memory !== ARGON2_PARAMETERS.memory ||
    parsed.passes !== ARGON2_PARAMETERS.passes ||
    parsed.parallelism !== ARGON2_PARAMETERS.parallelism ||
    parsed.hash.length !== ARGON2_PARAMETERS.tagLength
  );
}

/**
 * A login for an unknown email still verifies a password against a hash of today's cost, so the
 * answer takes as long as for a known one and timing does not reveal which emails have accounts.
 */
export function createDecoyVerifier(): (password: string) => Promise<void> {
  let decoy: Promise<string> | undefined;
  return async (password) => {
    decoy ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(password, await decoy);
  };
}
