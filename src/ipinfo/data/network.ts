/**
 * What the network readers answer (the MaxMind ASN reader in geo.ts, the compact ASN ranges in
 * asn-ranges.ts): types only, so both readers and their callers import them one way.
 */

export interface Network {
  /** The ISP name when an ISP database supplies it, else the AS organisation. */
  provider?: string;
  /** 'AS15169' */
  asn?: string;
  asnNumber?: number;
  /** The database network that matched, e.g. '1.0.0.0/24'. */
  route?: string;
}

export interface NetworkReader {
  readonly databaseType: string;
  readonly buildEpoch: Date;
  /** Size of the data (netinfo_data_entries): ranges, or search-tree nodes of a MaxMind-format file. */
  readonly entries?: number;
  lookupNetwork(ip: string): Network | undefined;
}
