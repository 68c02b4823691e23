/** A DNS blacklist: its display name and the DNS zone queried as `<reversed IPv4>.<zone>`. */
export interface Dnsbl {
  readonly name: string;
  readonly zone: string;
}

/**
 * The eight lists checked by default: each is alive and answers public queries today, and each
 * sees different abuse. SORBS closed in 2024 and is not here; the CBL is part of Spamhaus XBL and so
 * covered by ZEN (SBL + XBL + PBL in one query). Spamhaus refuses queries arriving through large
 * public resolvers (answering 127.255.255.254, reported as an error): operators should point
 * DNS_SERVERS at their own recursive resolver or use a Spamhaus DQS zone through DNSBL_ZONES.
 */
export const DEFAULT_DNSBLS: readonly Dnsbl[] = Object.freeze([
  { name: 'Spamhaus ZEN', zone: 'zen.spamhaus.org' },
  { name: 'SpamCop', zone: 'bl.spamcop.net' },
  { name: 'Barracuda', zone: 'b.barracudacentral.org' },
  { name: 'PSBL', zone: 'psbl.surriel.com' },
  { name: 'Mailspike', zone: 'bl.mailspike.net' },
  { name: 'UCEPROTECT Level 1', zone: 'dnsbl-1.uceprotect.net' },
  { name: 'NiX Spam', zone: 'ix.dnsbl.manitu.net' },
  { name: 'DroneBL', zone: 'dnsbl.dronebl.org' },
]);

const ZONE = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z]{2,63}$/i;

/** Parses DNSBL_ZONES: `name=zone,...` (the whole set replaces the defaults). */
export function parseDnsblZones(raw: string): readonly Dnsbl[] {
  if (raw.trim() === '') return DEFAULT_DNSBLS;
  const lists = raw.split(',').map((entry) => {
    const separator = entry.indexOf('=');
    const name = entry.slice(0, separator).trim();
    const zone = entry
      .slice(separator + 1)
      .trim()
      .toLowerCase()
      .replace(/\.$/, '');
    if (separator < 1 || name === '' || !ZONE.test(zone)) {
      throw new Error(`"${entry.trim()}" is not of the form name=zone (e.g. Spamhaus ZEN=zen.spamhaus.org)`);
    }
    return Object.freeze({ name, zone });
  });
  const zones = new Set(lists.map((list) => list.zone));
  if (zones.size !== lists.length) throw new Error('a zone is listed twice');
  return Object.freeze(lists);
}

/** The query name for an IPv4 address in a list: 192.0.2.1 -> 1.2.0.192.<zone>. */
export function dnsblQueryName(ipv4: string, zone: string): string {
  return `${ipv4.split('.').reverse().join('.')}.${zone}`;
}
