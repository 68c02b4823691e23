/** What a port-43 reply says about a domain. A value the reply does not give is null (or []), never a guess. */
export interface ParsedDomainWhois {
  /** Lower case, as registered (punycode stays punycode). */
  domain_name: string | null;
  registrar: string | null;
  /** 'YYYY-MM-DD', the calendar date as written, with no time-zone shift. */
  creation_date: string | null;
  expiration_date: string | null;
  updated_date: string | null;
  /** Lower case, no trailing dot, unique, without the glue addresses some registries append. */
  name_servers: string[];
  /** EPP codes without the ICANN URL ('clientTransferProhibited'), or the registry's own words ('connect'). */
  status: string[];
  /** As the registry writes it: 'unsigned', 'signedDelegation', 'yes', ... */
  dnssec: string | null;
  /** False when the reply says the name is not registered (not found, available, free). */
  registered: boolean;
}

/** What an RDAP autnum object says about an AS number (or the block of AS numbers holding it). */
export interface ParsedAutnum {
  /** The AS name (`GOOGLE`). */
  network_name: string | null;
  organisation: string | null;
  country: string | null;
  registry: ParsedIpWhois['registry'];
  /** 'AS<first> - AS<last>' of the registered block: one number gives 'AS15169 - AS15169'. */
  asn_range: string | null;
}

/** What a port-43 reply from a regional internet registry says about an address block. */
export interface ParsedIpWhois {
  /** NetName (ARIN) or netname (RPSL registries). */
  network_name: string | null;
  /** The holder: OrgName / org-name / owner, else the first descr line. */
  organisation: string | null;
  /** Prefixes as written or, for an RPSL range, the prefixes that cover it exactly. */
  cidr: string[];
  /** 'first - last' address of the block. */
  range: string | null;
  /** ISO 3166 alpha-2 code, upper case. */
  country: string | null;
  /** The registry whose database answered, derived from its own markers in the text. */
  registry: 'arin' | 'ripe' | 'apnic' | 'afrinic' | 'lacnic' | null;
}
