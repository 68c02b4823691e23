/** A DNS blacklist: its display name and the DNS zone queried as `<reversed IPv4>.<zone>`. */
export interface Dnsbl {
  readonly name: string;
  readonly zone: string;
  /** The zone as answers and messages show it: with an access key hidden (see hideZoneKeys). */
  readonly shownZone: string;
}

/**
 * A zone with its access keys hidden: Spamhaus DQS (`<key>.zen.dq.spamhaus.net`, 26 characters)
 * and Abusix (32) put the subscriber's key in a label, and the zone is part of every public answer.
 * A label of 20 or more letters and digits is such a key (list names are short words); it is shown
 * as `[key]`.
 */
export function hideZoneKeys(zone: string): string {
  // Also over text that contains a zone (a DNSBL_ZONES entry quoted in an error): `=` and spaces bound it.
  return zone.replace(/(^|[.=\s])[a-z0-9]{20,}(?=[.\s]|$)/gi, '$1[key]');
}

/**
 * The eight lists checked by default: each is alive and answers public queries today, and each
 * sees different abuse. SORBS closed in 2024 and is not here; the CBL is part of Spamhaus XBL and so
 * covered by ZEN (SBL + XBL + PBL in one query). Spamhaus refuses queries arriving through large
 * public resolvers (answering 127.255.255.254, reported as an error): operators should point
 * DNS_SERVERS at their own recursive resolver or use a Spamhaus DQS zone through DNSBL_ZONES.
 */
export const DEFAULT_DNSBLS: readonly Dnsbl[] = Object.freeze(
  [
    { name: 'Spamhaus ZEN', zone: 'zen.spamhaus.org' },
    { name: 'SpamCop', zone: 'bl.spamcop.net' },
    { name: 'Barracuda', zone: 'b.barracudacentral.org' },
    { name: 'PSBL', zone: 'psbl.surriel.com' },
    { name: 'Mailspike', zone: 'bl.mailspike.net' },
    { name: 'UCEPROTECT Level 1', zone: 'dnsbl-1.uceprotect.net' },
    { name: 'NiX Spam', zone: 'ix.dnsbl.manitu.net' },
    { name: 'DroneBL', zone: 'dnsbl.dronebl.org' },
  ].map((list) => Object.freeze({ ...list, shownZone: list.zone })),
);

const ZONE = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z]{2,63}$/i;

/** Parses DNSBL_ZONES: `name=zone,...` (the whole set replaces the defaults). */
export function parseDnsblZones(raw: string): readonly Dnsbl[] {
  if (raw.trim() === '') return DEFAULT_DNSBLS;
  // Empty entries (a trailing comma) are skipped.
  const entries = raw.split(',').filter((entry) => entry.trim() !== '');
  const lists = entries.map((entry) => {
    const separator = entry.indexOf('=');
    const name = entry.slice(0, separator).trim();
    const zone = entry
      .slice(separator + 1)
      .trim()
      .toLowerCase()
      .replace(/\.$/, '');
    if (separator < 1 || name === '' || !ZONE.test(zone)) {
      throw new Error(
        `"${hideZoneKeys(entry.trim())}" is not of the form name=zone (e.g. Spamhaus ZEN=zen.spamhaus.org)`,
      );
    }
    return Object.freeze({ name, zone, shownZone: hideZoneKeys(zone) });
  });
  const seen = new Set<string>();
  for (const list of lists) {
    if (seen.has(list.zone)) throw new Error(`the zone ${list.shownZone} is listed twice`);
    seen.add(list.zone);
  }
  return Object.freeze(lists);
}

/** The query name for an IPv4 address in a list: 192.0.2.1 -> 1.2.0.192.<zone>. */
export function dnsblQueryName(ipv4: string, zone: string): string {
  return `${ipv4.split('.').reverse().join('.')}.${zone}`;
}
