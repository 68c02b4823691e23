import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * argon2id with OWASP's second recommended setting (19 MiB, 2 passes, 1 lane). Measured on this
 * project's 2-core machine: about 25-40 ms per hash (64 MiB x 2 took ~125 ms, over the 100 ms we
 * allow a login). More lanes did not help: Node computes them on one thread-pool thread. The
 * parameters are stored in each hash (PHC string), so raising them later rehashes at next login.
 */
export const ARGON2_PARAMETERS = Object.freeze({ memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 });
const SALT_BYTES = 16;

/** The list of common passwords keeps only entries this long or longer: lowering it needs a new list. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;
/**
 * An email's name (before the @) shorter than this is not looked for inside a password: a name of
 * three letters (`ann`, `bob`) occurs in too many good passphrases ("planning a trip"). The whole
 * email is still refused whatever its length.
 */
export const EMAIL_NAME_MIN_LENGTH = 4;

/**
 * NFKC, as NIST SP 800-63B advises, so the same password typed on another keyboard or OS matches.
 * Length counts code points after normalisation.
 */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

let commonPasswords: ReadonlySet<string> | undefined;
/** scripts/common-passwords.ts says where they come from. Read once, on first use. */
function isCommonPassword(lowerCase: string): boolean {
  commonPasswords ??= new Set(
    readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line !== ''),
  );
  return commonPasswords.has(lowerCase);
}

/**
 * The rules of NIST SP 800-63B (5.1.1.2): a length, no
 * composition rules, but not a password attackers try first: one of the common ones, one character
 * repeated, or the account's own email (or the name before its @, compared without case). Control
 * characters (NUL, tab, newline...) are refused: no keyboard types them into a password field, and
 * they would not survive every client that sends one. `email` is the normalised email.
 */
export function passwordProblem(password: string, email: string): string | null {
  const normalised = normalisePassword(password);
  if (/\p{Cc}/u.test(normalised)) return 'must not contain control characters (such as NUL, tab or a line break)';
  const characters = [...normalised];
  if (characters.length < PASSWORD_MIN_LENGTH || characters.length > PASSWORD_MAX_LENGTH) {
    return `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`;
  }
  if (characters.every((character) => character === characters[0])) {
    return 'must not be one character repeated';
  }
  const lowerCase = normalised.toLowerCase();
  const address = email.normalize('NFKC').toLowerCase();
  const at = address.lastIndexOf('@');
  const name = at < 0 ? address : address.slice(0, at);
  if (lowerCase.includes(address) || ([...name].length >= EMAIL_NAME_MIN_LENGTH && lowerCase.includes(name))) {
    return 'must not contain your email address or the name before its @';
  }
  if (isCommonPassword(lowerCase)) {
    return 'is one of the most common passwords (from lists of leaked passwords), the first ones attackers try; choose another';
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

/** Upgraded at login. */
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
