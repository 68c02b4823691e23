import { rangeToPrefixes } from '../parse/ip-ranges.ts';
import { asnRecord, emptyDomainRecord, ipRecord, type WhoisRecord } from '../parse/record.ts';
import type { ParsedIpWhois } from '../parse/types.ts';

/**
 * RDAP JSON (RFC 9083) read into the same `parsed` fields as a WHOIS answer, so a client cannot
 * tell the sources apart except by `source`. Pure: the document in, the record out.
 */

interface RdapEvent {
  eventAction?: unknown;
  eventDate?: unknown;
}

interface RdapEntity {
  roles?: unknown;
  vcardArray?: unknown;
  entities?: unknown;
}

export interface RdapObject {
  objectClassName?: unknown;
  ldhName?: unknown;
  unicodeName?: unknown;
  status?: unknown;
  events?: unknown;
  entities?: unknown;
  nameservers?: unknown;
  secureDNS?: { delegationSigned?: unknown } | null;
  startAddress?: unknown;
  endAddress?: unknown;
  name?: unknown;
  country?: unknown;
  port43?: unknown;
  cidr0_cidrs?: unknown;
  startAutnum?: unknown;
  endAutnum?: unknown;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** The items of an array that are objects: a server may put null or a string where an object belongs. */
const objects = (value: unknown): Record<string, unknown>[] =>
  list(value).filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/**
 * RFC 8056 §2 maps each EPP status to an RDAP status ('client transfer prohibited'); the reverse
 * gives the EPP codes WHOIS answers carry, so `status` has one vocabulary whatever the source.
 * RDAP statuses with no EPP counterpart ('locked', 'associated') are kept as written.
 */
const EPP_BY_RDAP_STATUS: Readonly<Record<string, string>> = {
  active: 'ok',
  inactive: 'inactive',
  'add period': 'addPeriod',
  'auto renew period': 'autoRenewPeriod',
  'client delete prohibited': 'clientDeleteProhibited',
  'client hold': 'clientHold',
  'client renew prohibited': 'clientRenewProhibited',
  'client transfer prohibited': 'clientTransferProhibited',
  'client update prohibited': 'clientUpdateProhibited',
  'pending create': 'pendingCreate',
  'pending delete': 'pendingDelete',
  'pending renew': 'pendingRenew',
  'pending restore': 'pendingRestore',
  'pending transfer': 'pendingTransfer',
  'pending update': 'pendingUpdate',
  'redemption period': 'redemptionPeriod',
  'renew period': 'renewPeriod',
  'server delete prohibited': 'serverDeleteProhibited',
  'server hold': 'serverHold',
  'server renew prohibited': 'serverRenewProhibited',
  'server transfer prohibited': 'serverTransferProhibited',
  'server update prohibited': 'serverUpdateProhibited',
  'transfer period': 'transferPeriod',
};

export function eppStatus(rdapStatus: string): string {
  return EPP_BY_RDAP_STATUS[rdapStatus.trim().toLowerCase()] ?? rdapStatus.trim();
}

/** The calendar date as written ('2024-03-01T23:30:00-05:00' is 2024-03-01): no time-zone shift, as for WHOIS. */
function dateOf(value: unknown): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text(value) ?? '');
  if (!match) return null;
  const date = `${match[1]}-${match[2]}-${match[3]}`;
  // Date.parse rolls '2024-02-30' over to March; a date that does not exist is no date.
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date) ? date : null;
}

function eventDate(events: unknown, action: string): string | null {
  const event = objects(events).find((item) => text((item as RdapEvent).eventAction)?.toLowerCase() === action) as
    | RdapEvent
    | undefined;
  return event ? dateOf(event.eventDate) : null;
}

/** A jCard's formatted name: ['vcard', [['fn', {}, 'text', 'Example Registrar, Inc.'], ...]]. */
function vcardName(entity: RdapEntity, property = 'fn'): string | null {
  const properties = list(list(entity.vcardArray)[1]);
  for (const item of properties) {
    const [name, , , value] = list(item);
    if (name === property) return text(value);
  }
  return null;
}

function entitiesWithRole(entities: unknown, role: string): RdapEntity[] {
  const found: RdapEntity[] = [];
  for (const item of objects(entities)) {
    const entity = item as RdapEntity;
    if (list(entity.roles).some((value) => value === role)) found.push(entity);
  }
  return found;
}

function hostName(value: unknown): string | null {
  const name = text(value)?.toLowerCase().replace(/\.$/, '');
  return name ? name : null;
}

/** An RDAP domain object (HTTP 200) as the response's `parsed`; `registered` is true. */
export function recordFromRdapDomain(domain: RdapObject): WhoisRecord {
  const registrar = entitiesWithRole(domain.entities, 'registrar')[0];
  const nameServers = objects(domain.nameservers)
    .map((server) => hostName((server as RdapObject).ldhName))
    .filter((name): name is string => name !== null);
  const signed = domain.secureDNS?.delegationSigned;
  const statuses = list(domain.status)
    .map(text)
    .filter((status): status is string => status !== null)
    .map(eppStatus);
  return {
    ...emptyDomainRecord(true),
    domain_name: hostName(domain.ldhName),
    registrar: registrar ? (vcardName(registrar) ?? vcardName(registrar, 'org')) : null,
    creation_date: eventDate(domain.events, 'registration'),
    expiration_date: eventDate(domain.events, 'expiration'),
    updated_date: eventDate(domain.events, 'last changed'),
    name_servers: [...new Set(nameServers)],
    status: [...new Set(statuses)],
    // The words ICANN's WHOIS layout uses for the same fact.
    dnssec: signed === true ? 'signedDelegation' : signed === false ? 'unsigned' : null,
  };
}

const REGISTRY_BY_PORT43: Readonly<Record<string, ParsedIpWhois['registry']>> = {
  'whois.arin.net': 'arin',
  'whois.ripe.net': 'ripe',
  'whois.apnic.net': 'apnic',
  'whois.afrinic.net': 'afrinic',
  'whois.lacnic.net': 'lacnic',
};

function countryCode(value: unknown): string | null {
  const country = text(value);
  return country && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : null;
}

function holderName(object: RdapObject): string | null {
  const holder = entitiesWithRole(object.entities, 'registrant')[0];
  return holder ? (vcardName(holder) ?? vcardName(holder, 'org')) : null;
}

const autnumNumber = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;

/** An RDAP autnum object (RFC 9083 §5.5) as the response's `parsed` for an AS number. */
export function recordFromRdapAutnum(autnum: RdapObject): WhoisRecord {
  const first = autnumNumber(autnum.startAutnum);
  const last = autnumNumber(autnum.endAutnum) ?? first;
  return asnRecord({
    network_name: text(autnum.name),
    organisation: holderName(autnum),
    country: countryCode(autnum.country),
    registry: REGISTRY_BY_PORT43[text(autnum.port43)?.toLowerCase() ?? ''] ?? null,
    asn_range: first !== null && last !== null ? `AS${first} - AS${last}` : null,
  });
}

/** An RDAP IP network object as the response's `parsed` for an IP target. */
export function recordFromRdapNetwork(network: RdapObject): WhoisRecord {
  const start = text(network.startAddress);
  const end = text(network.endAddress);
  const cidrs = objects(network.cidr0_cidrs)
    .map((item) => {
      const entry = item as { v4prefix?: unknown; v6prefix?: unknown; length?: unknown };
      const prefix = text(entry.v4prefix) ?? text(entry.v6prefix);
      return prefix !== null && typeof entry.length === 'number' ? `${prefix}/${entry.length}` : null;
    })
    .filter((cidr): cidr is string => cidr !== null);
  return ipRecord({
    network_name: text(network.name),
    organisation: holderName(network),
    cidr: cidrs.length > 0 ? cidrs : start && end ? rangeToPrefixes(start, end) : [],
    range: start && end ? `${start} - ${end}` : null,
    country: countryCode(network.country),
    registry: REGISTRY_BY_PORT43[text(network.port43)?.toLowerCase() ?? ''] ?? null,
  });
}
