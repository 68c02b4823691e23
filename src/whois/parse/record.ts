import type { ParsedAutnum, ParsedDomainWhois, ParsedIpWhois } from './types.ts';

/**
 * The `parsed` object of a /whois response. Domain targets fill the spec's fields; IP targets fill
 * the network fields and leave the domain fields null or empty. A value no answer gives is null
 * (or []), never a guess.
 */
export type WhoisRecord = Omit<ParsedDomainWhois, 'registered'> & {
  /** true: a record was found; false: the registry says the name is not registered; null: neither (IP targets, unreadable answers). */
  registered: boolean | null;
} & Partial<ParsedIpWhois> &
  Partial<Pick<ParsedAutnum, 'asn_range'>>;

export function emptyDomainRecord(registered: boolean | null): WhoisRecord {
  return {
    domain_name: null,
    registrar: null,
    creation_date: null,
    expiration_date: null,
    updated_date: null,
    name_servers: [],
    status: [],
    dnssec: null,
    registered,
  };
}

export function domainRecord(parsed: ParsedDomainWhois): WhoisRecord {
  return { ...parsed, registered: parsed.registered };
}

export function ipRecord(parsed: ParsedIpWhois | null): WhoisRecord {
  return {
    ...emptyDomainRecord(null),
    network_name: parsed?.network_name ?? null,
    organisation: parsed?.organisation ?? null,
    cidr: parsed?.cidr ?? [],
    range: parsed?.range ?? null,
    country: parsed?.country ?? null,
    registry: parsed?.registry ?? null,
  };
}

/**
 * An AS number's record: the network fields that fit an AS (its name, holder, country, registry)
 * and `asn_range`; an AS has no prefixes or address range, so `cidr` and `range` are left out.
 * `registered` is true for a record found; `asnRecord(null)` is the registry's "no such AS number"
 * (RDAP 404), with `registered` false.
 */
export function asnRecord(parsed: ParsedAutnum | null): WhoisRecord {
  if (parsed === null) {
    return {
      ...emptyDomainRecord(false),
      network_name: null,
      organisation: null,
      country: null,
      registry: null,
      asn_range: null,
    };
  }
  return {
    ...emptyDomainRecord(true),
    network_name: parsed.network_name,
    organisation: parsed.organisation,
    country: parsed.country,
    registry: parsed.registry,
    asn_range: parsed.asn_range,
  };
}

/** Whether a domain parse holds anything beyond the registered flag. */
export function hasDomainData(parsed: ParsedDomainWhois): boolean {
  return (
    parsed.domain_name !== null ||
    parsed.registrar !== null ||
    parsed.creation_date !== null ||
    parsed.expiration_date !== null ||
    parsed.name_servers.length > 0
  );
}

/** `primary`'s values, with each null or empty one taken from `fallback`. */
export function fillGaps(primary: ParsedDomainWhois, fallback: ParsedDomainWhois): ParsedDomainWhois {
  return {
    domain_name: primary.domain_name ?? fallback.domain_name,
    registrar: primary.registrar ?? fallback.registrar,
    creation_date: primary.creation_date ?? fallback.creation_date,
    expiration_date: primary.expiration_date ?? fallback.expiration_date,
    updated_date: primary.updated_date ?? fallback.updated_date,
    name_servers: primary.name_servers.length > 0 ? primary.name_servers : fallback.name_servers,
    status: primary.status.length > 0 ? primary.status : fallback.status,
    dnssec: primary.dnssec ?? fallback.dnssec,
    registered: primary.registered,
  };
}
