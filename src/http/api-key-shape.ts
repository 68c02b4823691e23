/**
 * What an API key looks like from outside: its prefix and the length of what follows, in base62.
 * Below both the accounts, which issue keys of this shape (accounts/api-key-format.ts), and the
 * logs, which redact any string of this shape (logging.ts), so neither imports the other.
 */
export const API_KEY_PREFIX = 'nk_';
/** Base62 characters after the prefix: 30 random and 6 of checksum. */
export const API_KEY_BODY_LENGTH = 36;
