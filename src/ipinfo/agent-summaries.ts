import type { Static } from 'typebox';
import type { AsnBody } from './answers/asn-answer.ts';
import type { IpInfoBody } from './answers/json-schema.ts';

// The line an MCP tool answers beside the JSON (mcp/call.ts): the facts a person asks for first.

type IpAnswer = Static<typeof IpInfoBody>;

/** `8.8.8.8: Mountain View, US · AS15169 Google LLC (8.8.8.0/24, RPKI valid) · hosting · flags: hosting` */
export function ipSummary(answer: IpAnswer): string {
  // A `fields` filter may have left out any part, the address and the flags included.
  const parts = answer.ip ? [answer.hostname ? `${answer.ip} (${answer.hostname})` : answer.ip] : [];
  if (answer.special) parts.push(`${answer.special.name} (${answer.special.range}, ${answer.special.rfc})`);
  const { location, network, security } = answer;
  const place = [location?.city, location?.countryCode ?? location?.country].filter(Boolean).join(', ');
  if (place) parts.push(place);
  if (network?.asn) {
    const route = [network.route, network.rpki ? `RPKI ${network.rpki.status}` : undefined].filter(Boolean).join(', ');
    parts.push(`${network.asn}${network.provider ? ` ${network.provider}` : ''}${route ? ` (${route})` : ''}`);
  }
  if (answer.type) parts.push(answer.type);
  if (security) {
    const flags = (['bogon', 'proxy', 'vpn', 'tor', 'hosting'] as const).filter((flag) => security[flag] === true);
    parts.push(flags.length > 0 ? `flags: ${flags.join(', ')}` : 'no security flags');
  }
  return parts.join(' · ');
}

/** `AS15169 Google LLC: 1,024 IPv4 and 100 IPv6 prefixes (8,765,432 IPv4 addresses), hosting; RPKI 900 valid, 2 invalid, 222 without a ROA` */
export function asnSummary(answer: Static<typeof AsnBody>): string {
  const count = (value: number) => value.toLocaleString('en-US');
  let line = `${answer.asn}${answer.name ? ` ${answer.name}` : ''}: ${count(answer.prefixCount.ipv4)} IPv4 and ${count(answer.prefixCount.ipv6)} IPv6 prefixes (${count(answer.ipv4Addresses)} IPv4 addresses)`;
  if (answer.type) line += `, ${answer.type}`;
  const rpki = answer.rpki?.summary;
  if (rpki)
    line += `; RPKI ${count(rpki.valid)} valid, ${count(rpki.invalid)} invalid, ${count(rpki.notFound)} without a ROA`;
  return line;
}

/** `3 items: 2 answered, 1 refused (999.1.1.1)` */
export function batchSummary(answer: Readonly<Record<string, object>>): string {
  const items = Object.entries(answer);
  const refused = items.filter(([, item]) => 'error' in item).map(([key]) => key);
  const answered = items.length - refused.length;
  const shown = refused.slice(0, 5).join(', ') + (refused.length > 5 ? ', …' : '');
  return `${items.length} ${items.length === 1 ? 'item' : 'items'}: ${answered} answered${refused.length > 0 ? `, ${refused.length} refused (${shown})` : ''}`;
}
