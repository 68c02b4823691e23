import type { WhoisChainTarget } from './parse/target.ts';

/**
 * The line sent to a server. Most take the bare name or address; a few answer usefully only to
 * their own syntax (the same forms GNU whois sends):
 * - ARIN: `n + <ip>` limits the search to network records ('n') and asks for their full details
 *   ('+'), so the reply is the network rather than a list of every kind of matching object.
 * - DENIC: `-T dn,ace <domain>` limits the answer to the domain object ('dn') and asks for names in
 *   their ACE (punycode) form ('ace'), the form this service queries and reports.
 * - JPRS and JPNIC: a `/e` suffix asks for English labels instead of Japanese.
 */
export function whoisQueryFor(serverHost: string, target: WhoisChainTarget): string {
  const host = serverHost.toLowerCase();
  if (target.kind === 'ip') {
    if (host === 'whois.arin.net') return `n + ${target.address}`;
    if (host === 'whois.nic.ad.jp') return `${target.address}/e`;
    return target.address;
  }
  if (host === 'whois.denic.de' && target.name.endsWith('.de')) return `-T dn,ace ${target.name}`;
  if (host === 'whois.jprs.jp' && target.name.endsWith('.jp')) return `${target.name}/e`;
  return target.name;
}
