import { type NumericDateOrder, normaliseWhoisDate, numericDateOrder } from './dates.ts';
import {
  CREATION_KEYS,
  DNSSEC_KEYS,
  DOMAIN_NAME_KEYS,
  EXPIRATION_KEYS,
  NAME_SERVER_KEY,
  REGISTRAR_KEYS,
  STATUS_KEYS,
  UPDATED_KEYS,
} from './domain-keys.ts';
import { readWhoisEntries, type WhoisEntry } from './entries.ts';
import { isNotFound } from './not-found.ts';
import type { ParsedDomainWhois } from './types.ts';

const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const PLACEHOLDER = /^(?:n\/?a|none|not? ?\w* ?(?:available|disclosed|applicable)|redacted.*|-+|null|unknown)$/i;

/** The entries of the first key, in precedence order, that has a usable value. */
function firstValue(entries: WhoisEntry[], keys: string[], accept: (value: string) => boolean): WhoisEntry | undefined {
  for (const key of keys) {
    const found = entries.find((entry) => entry.key === key && accept(entry.value));
    if (found) return found;
  }
  return undefined;
}

function readDomainName(value: string): string | null {
  const token = value.split(/\s+/)[0]?.replace(/\.$/, '').toLowerCase() ?? '';
  return HOST_NAME.test(token) && !IPV4.test(token) ? token : null;
}

/**
 * A reply can hold several records (Verisign lists every name containing the query; a referral
 * chain concatenates registry and registrar answers). Entries from the record that names the queried
 * domain come first, so its values win; the rest stay as a fallback.
 */
function focusOnQuery(entries: WhoisEntry[], query: string | undefined): WhoisEntry[] {
  if (!query) return entries;
  const wanted = query.trim().replace(/\.$/, '').toLowerCase();
  const start = entries.findIndex(
    (entry) => DOMAIN_NAME_KEYS.includes(entry.key) && readDomainName(entry.value) === wanted,
  );
  if (start <= 0) return entries;
  return [...entries.slice(start), ...entries.slice(0, start)];
}

/**
 * Every host name in a name-server value, without the glue some registries append
 * ('ns1.google.com 216.239.32.10', 'ns1.dropped.net.pl. [185.253.213.10]', SGNIC's four on one line).
 * A zone-file line ('google.pt NS ns4.google.com.') gives the target of its NS record.
 */
function readNameServerValue(value: string): string[] {
  const record = /\sNS\s+(\S+)/i.exec(value);
  const tokens = record?.[1] ? [record[1]] : value.split(/[\s,]+/);
  return tokens
    .map((token) =>
      token
        .replace(/^[[(]|[\])]$/g, '')
        .replace(/\.$/, '')
        .toLowerCase(),
    )
    .filter((token) => token.includes('.') && !IPV4.test(token) && HOST_NAME.test(token));
}

function readNameServers(entries: WhoisEntry[]): string[] {
  const names = entries
    .filter((entry) => NAME_SERVER_KEY.test(entry.key))
    .flatMap((entry) => readNameServerValue(entry.value));
  return [...new Set(names)];
}

/** 'clientTransferProhibited https://icann.org/epp#clientTransferProhibited' -> 'clientTransferProhibited'. */
function readStatus(value: string): string {
  return value
    .replace(/\s*\(?https?:\/\/\S+\)?/g, '')
    .replace(/^"|"$/g, '')
    .trim();
}

function readStatuses(entries: WhoisEntry[]): string[] {
  for (const key of STATUS_KEYS) {
    const statuses = entries
      .filter((entry) => entry.key === key)
      .map((entry) => readStatus(entry.value))
      .filter((status) => status !== '');
    if (statuses.length > 0) return [...new Set(statuses)];
  }
  return [];
}

function readDate(entries: WhoisEntry[], keys: string[], order: NumericDateOrder): string | null {
  for (const entry of entries) {
    if (!keys.includes(entry.key)) continue;
    const date = normaliseWhoisDate(entry.value, order);
    if (date !== null) return date;
  }
  return null;
}

// The registrar's own name; the registry handle and URL some replies append are not part of it:
// 'MarkMonitor, Inc. (R22-LRCC)', 'Key-Systems GmbH [Tag = KEY-SYSTEMS-DE]', 'IONOS SE ( https://nic.at/registrar/22 )'.
const REGISTRAR_SUFFIX = /\s*(?:\(\s*https?:\/\/[^)]*\)|\[tag = [^\]]*\]|\((?=[^)\s]*\d)[^)\s]+\)|\bR\d+-[A-Z]+)$/i;
const HANDLE = /^(?=\S*[-.\d])\S+$/;
const REGISTRAR_OBJECT_KEYS = ['organization', 'organisation', 'name', 'org-name'];

/**
 * Some registries give the registrar as a handle and then print the registrar's object right below
 * it ('Registrar: MARK-0292' / 'Name: MarkMonitor International Limited' in .sk; 'registrar:
 * ua.markmonitor' / 'organization: MarkMonitor Inc.' in .ua). The name in that object is preferred.
 */
function readRegistrar(entries: WhoisEntry[]): string | null {
  const entry = firstValue(entries, REGISTRAR_KEYS, (value) => value !== '' && !PLACEHOLDER.test(value));
  if (!entry) return null;
  if (HANDLE.test(entry.value)) {
    const named = entries
      .filter((other) => other.value === entry.value && REGISTRAR_KEYS.includes(other.key))
      .map((handle) =>
        entries.find(
          (other) =>
            other.line > handle.line && other.line <= handle.line + 2 && REGISTRAR_OBJECT_KEYS.includes(other.key),
        ),
      )
      .find((object) => object !== undefined && object.value !== '');
    if (named) return named.value;
  }
  return entry.value.replace(REGISTRAR_SUFFIX, '').trim() || null;
}

function readText(entries: WhoisEntry[], keys: string[]): string | null {
  const entry = firstValue(entries, keys, (value) => value !== '' && !PLACEHOLDER.test(value));
  return entry?.value ?? null;
}

/**
 * Reads a domain WHOIS reply from any registry layout. `query` (the name that was asked for) only
 * chooses between records when a reply holds several; it is never returned in place of a missing value.
 */
export function parseDomainWhois(raw: string, query?: string): ParsedDomainWhois {
  const entries = focusOnQuery(readWhoisEntries(raw), query);
  const order = numericDateOrder(entries.map((entry) => entry.value));
  const domainEntry = firstValue(entries, DOMAIN_NAME_KEYS, (value) => readDomainName(value) !== null);
  return {
    domain_name: domainEntry ? readDomainName(domainEntry.value) : null,
    registrar: readRegistrar(entries),
    creation_date: readDate(entries, CREATION_KEYS, order),
    expiration_date: readDate(entries, EXPIRATION_KEYS, order),
    updated_date: readDate(entries, UPDATED_KEYS, order),
    name_servers: readNameServers(entries),
    status: readStatuses(entries),
    dnssec: readText(entries, DNSSEC_KEYS),
    registered: !isNotFound(raw),
  };
}
