import { domainToASCII } from 'node:url';

export type EmailResult =
  | { readonly ok: true; readonly email: string }
  | { readonly ok: false; readonly reason: string };

const MAX_LENGTH = 254;
const MAX_LOCAL_LENGTH = 64;

/**
 * The form an email is stored and compared in: trimmed, Unicode NFC, lower case (no mail provider
 * in practice treats `Ann@` and `ann@` as two people, and users do not remember which they typed),
 * the domain in ASCII (punycode for internationalised names). Plus-addressing and dots are kept:
 * they are the user's choice.
 */
export function normaliseEmail(raw: string): EmailResult {
  const value = raw.trim().normalize('NFC').toLowerCase();
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return { ok: false, reason: 'must look like name@example.com' };
  const local = value.slice(0, at);
  // Printable characters only: no spaces, controls, quotes or a second @ (quoted local parts are
  // legal but unseen in practice, and would make this text unsafe to show or log), and no format
  // characters (\p{Cf}: zero-width spaces, right-to-left overrides), with which one address can be
  // made to look like another, or a listing line be turned around.
  if (!/^[^\s"@<>()[\]\\,;:\p{Cc}\p{Cf}]+$/u.test(local) || local.length > MAX_LOCAL_LENGTH) {
    return { ok: false, reason: 'has an invalid name before the @' };
  }
  const domain = domainToASCII(value.slice(at + 1));
  const labels = domain.split('.');
  const validLabels = labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label));
  if (domain === '' || labels.length < 2 || !validLabels) return { ok: false, reason: 'has an invalid domain' };
  const email = `${local}@${domain}`;
  if (email.length > MAX_LENGTH) return { ok: false, reason: `must be at most ${MAX_LENGTH} characters` };
  return { ok: true, email };
}
