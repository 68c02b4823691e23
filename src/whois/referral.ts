// Where a reply points to the next WHOIS server: IANA's 'refer:' (and 'whois:' in its TLD records),
// a thin registry's 'Registrar WHOIS Server:' (older Verisign replies say 'Whois Server:'), and
// ARIN's 'ReferralServer: whois://host:port'. RWHOIS and web referrals cannot be followed over
// port 43, so they are ignored.
const REFERRAL_LINE = /^\s*(?:refer|whois|registrar whois server|whois server|referralserver)\s*:\s*(\S+)\s*$/i;
const HOST_AND_PORT =
  /^(?=.{1,253}(?::\d+)?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?(?::(\d{1,5}))?$/;

function readReferralTarget(value: string): string | null {
  let target = value.toLowerCase();
  if (target.startsWith('whois://')) target = target.slice('whois://'.length);
  else if (target.includes('://')) return null;
  target = target.replace(/\/+$/, '');
  const match = HOST_AND_PORT.exec(target);
  if (!match) return null;
  if (match[1] !== undefined && (Number(match[1]) < 1 || Number(match[1]) > 65535)) return null;
  return target;
}

/** The next server to ask, as 'host' or 'host:port' in lower case, or null when the reply names none. */
export function findReferral(raw: string): string | null {
  for (const line of raw.split(/\r?\n/)) {
    const value = REFERRAL_LINE.exec(line)?.[1];
    if (!value) continue;
    const target = readReferralTarget(value);
    if (target) return target;
  }
  return null;
}
