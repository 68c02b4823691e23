import { prefixToRange, rangeToPrefixes } from './ip-ranges.ts';
import type { ParsedIpWhois } from './types.ts';

interface Field {
  key: string;
  value: string;
}

/** IP WHOIS replies are flat 'key: value' lines (ARIN and RPSL alike); comments start with % or #. */
function readFields(raw: string): Field[] {
  const fields: Field[] = [];
  for (const line of raw.split(/\r?\n/)) {
    if (/^\s*[%#]/.test(line)) continue;
    const match = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    const [, key, value = ''] = match ?? [];
    if (key) fields.push({ key: key.toLowerCase(), value: value.trim() });
  }
  return fields;
}

function first(fields: Field[], keys: string[]): string | null {
  for (const key of keys) {
    const found = fields.find((field) => field.key === key && field.value !== '');
    if (found) return found.value;
  }
  return null;
}

const RPSL_SOURCES: Readonly<Record<string, ParsedIpWhois['registry']>> = {
  ripe: 'ripe',
  apnic: 'apnic',
  afrinic: 'afrinic',
  lacnic: 'lacnic',
  arin: 'arin',
};

/**
 * The answering registry, from its own markers: RPSL 'source:' names it; ARIN writes 'NetRange:';
 * LACNIC has no 'source:' but suffixes its handles with '-LACNIC'.
 */
function readRegistry(fields: Field[], raw: string): ParsedIpWhois['registry'] {
  const source = first(fields, ['source'])?.split(/\s/)[0]?.toLowerCase();
  if (source && RPSL_SOURCES[source]) return RPSL_SOURCES[source] ?? null;
  if (fields.some((field) => field.key === 'netrange')) return 'arin';
  if (/-LACNIC\b|lacnic\.net/i.test(raw)) return 'lacnic';
  return null;
}

/** ARIN: 'Organization: Google Inc. (GOGL)' carries the handle the 'OrgName:' line leaves out. */
function readOrganisation(fields: Field[]): string | null {
  const named = first(fields, ['orgname', 'org-name', 'owner', 'custname']);
  if (named) return named;
  const organization = first(fields, ['organization']);
  if (organization) return organization.replace(/\s*\([^)]*\)$/, '');
  return first(fields, ['descr']);
}

function readBlock(fields: Field[]): { range: string | null; cidr: string[] } {
  const arinCidr = first(fields, ['cidr']);
  const arinRange = first(fields, ['netrange']);
  if (arinRange || arinCidr) {
    const cidr = arinCidr ? arinCidr.split(/[\s,]+/).filter((item) => item !== '') : [];
    return { range: arinRange?.replace(/\s*-\s*/, ' - ') ?? null, cidr };
  }
  const block = first(fields, ['inetnum', 'inet6num']);
  if (!block) return { range: null, cidr: [] };
  const [, firstAddress, lastAddress] = /^(\S+)\s*-\s*(\S+)$/.exec(block) ?? [];
  if (firstAddress && lastAddress) {
    return { range: `${firstAddress} - ${lastAddress}`, cidr: rangeToPrefixes(firstAddress, lastAddress) };
  }
  const prefix = prefixToRange(block);
  if (prefix) return { range: `${prefix.first} - ${prefix.last}`, cidr: [prefix.cidr] };
  return { range: null, cidr: [] };
}

/**
 * Reads the network block from an ARIN, RIPE, APNIC, AFRINIC or LACNIC reply. Values come from the
 * first object in the reply, which every registry makes the network itself.
 */
export function parseIpWhois(raw: string): ParsedIpWhois {
  const fields = readFields(raw);
  const { range, cidr } = readBlock(fields);
  const country = first(fields, ['country']);
  return {
    network_name: first(fields, ['netname']),
    organisation: readOrganisation(fields),
    cidr,
    range,
    country: country && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : null,
    registry: readRegistry(fields, raw),
  };
}
