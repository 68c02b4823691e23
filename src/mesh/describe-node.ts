import { describeIp } from '../ipinfo/answers/describe-ip.ts';
import type { IpData } from '../ipinfo/data/ip-data.ts';
import type { NodeLocation } from './location.ts';
import { continentOf } from './location.ts';
import type { NodeInfo } from './node-info.ts';

export interface NodeFacts {
  name: string;
  location: NodeLocation | null;
  address: string | null;
  tags: readonly string[];
  tools: readonly string[];
  interfaces: { ipv4: string[]; ipv6: string[] };
  rawSockets: boolean;
  version: string;
}

/**
 * The node as the mesh lists it: NODE_LOCATION when set, else what its own IP data says of its
 * public address (NODE_ADDRESS, else the first of its interfaces); the ASN from the same lookup.
 * Pure: the data is passed in, and is undefined until it has loaded.
 */
export function describeNode(facts: NodeFacts, data: IpData | undefined): NodeInfo {
  const address = facts.address ?? facts.interfaces.ipv4[0] ?? facts.interfaces.ipv6[0];
  const looked = address !== undefined && data !== undefined ? describeIp(address, data) : undefined;
  let location: NodeLocation = {};
  if (facts.location !== null) location = { ...facts.location };
  else if (looked?.location !== undefined) {
    const found = looked.location;
    if (found.countryCode) location.country = found.countryCode;
    if (found.city) location.city = found.city;
    location.continent = found.continentCode ?? (found.countryCode ? continentOf(found.countryCode) : undefined);
    if (location.continent === undefined) delete location.continent;
    if (found.latitude !== undefined) location.latitude = found.latitude;
    if (found.longitude !== undefined) location.longitude = found.longitude;
  }
  const asn = looked?.network?.asn;
  const family = facts.address?.includes(':') ? 'ipv6' : 'ipv4';
  return {
    name: facts.name,
    location,
    asn: asn === undefined ? null : Number(asn.slice(2)),
    as_name: looked?.network?.provider ?? null,
    tags: [...facts.tags],
    tools: [...facts.tools],
    ipv4: facts.interfaces.ipv4.length > 0 || (facts.address !== null && family === 'ipv4'),
    ipv6: facts.interfaces.ipv6.length > 0 || (facts.address !== null && family === 'ipv6'),
    raw_sockets: facts.rawSockets,
    version: facts.version,
  };
}
