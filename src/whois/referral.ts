import { isIP } from 'node:net';

// Where a reply points to the next WHOIS server: IANA's 'refer:' (and 'whois:' in its TLD records),
// a thin registry's 'Registrar WHOIS Server:' (older Verisign replies say 'Whois Server:'), and
// ARIN's 'ReferralServer: whois://host:port'. A referral may name an IP address. ARIN also refers
// to RWHOIS servers (rwhois://host:port) and some records to web pages: those cannot be followed
// over port 43, but the answer did name them, so they are returned as written and the chain says
// why it stopped (referralScheme).
const REFERRAL_LINE = /^\s*(?:refer|whois|registrar whois server|whois server|referralserver)\s*:\s*(\S+)\s*$/i;
const HOST_AND_PORT =
  /^(?=.{1,253}(?::\d+)?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?(?::(\d{1,5}))?$/;
const IPV4_AND_PORT = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/;
const BRACKETED_IPV6_AND_PORT = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/;
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\/\S+$/;

const validPort = (port: string | undefined) => port === undefined || (Number(port) >= 1 && Number(port) <= 65535);

function readReferralTarget(value: string): string | null {
  let target = value.toLowerCase();
  if (target.startsWith('whois://')) target = target.slice('whois://'.length);
  else if (SCHEME.test(target)) return target;
  target = target.replace(/\/+$/, '');
  const name = HOST_AND_PORT.exec(target);
  if (name) return validPort(name[1]) ? target : null;
  const v4 = IPV4_AND_PORT.exec(target);
  if (v4 && isIP(v4[1] ?? '') === 4) return validPort(v4[2]) ? target : null;
  const v6 = BRACKETED_IPV6_AND_PORT.exec(target);
  if (v6 && isIP(v6[1] ?? '') === 6) return validPort(v6[2]) ? target : null;
  if (isIP(target) === 6) return target;
  return null;
}

/**
 * The next server an answer names: 'host', 'host:port', an IP address (IPv6 bare or in brackets
 * with a port), all in lower case; or, when the answer names no such server, another protocol's
 * URL as written (see referralScheme); null when it names none.
 */
export function findReferral(raw: string): string | null {
  let elsewhere: string | null = null;
  for (const line of raw.split(/\r?\n/)) {
    const value = REFERRAL_LINE.exec(line)?.[1];
    if (!value) continue;
    const target = readReferralTarget(value);
    // A port-43 server named anywhere in the answer wins over another protocol's URL.
    if (target !== null && referralScheme(target) === null) return target;
    elsewhere ??= target;
  }
  return elsewhere;
}

/** The scheme of a referral that is not a port-43 WHOIS server ('rwhois', 'https'), else null. */
export function referralScheme(referral: string): string | null {
  return SCHEME.exec(referral)?.[1] ?? null;
}
