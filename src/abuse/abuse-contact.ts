import { cidrOf, formatCidr, parseCidr } from '../net/cidr.ts';
import { formatIp, parseIp, unmapIpv4 } from '../net/ip-address.ts';
import { classifySpecialAddress } from '../net/special-addresses.ts';

/** The abuse entity as RDAP names it. */
export interface AbuseEntity {
  email: string;
  name: string | null;
  handle: string | null;
}

/** The network an RDAP answer is about. */
export interface RdapNetworkFacts {
  handle: string | null;
  name: string | null;
  /** `first - last` address. */
  range: string | null;
}

export type AbuseReading =
  | { kind: 'contact'; entity: AbuseEntity; network: RdapNetworkFacts }
  | { kind: 'parent'; url: string; network: RdapNetworkFacts }
  | { kind: 'none'; network: RdapNetworkFacts }
  | { kind: 'unreadable'; reason: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * Bounds the breadth-first search: a real answer nests entities two levels deep (ARIN: the
 * organisation's points of contact) and holds a dozen at most.
 */
const MAX_ENTITY_DEPTH = 4;
const MAX_ENTITIES = 200;

const REGISTRIES: readonly [domain: string, name: string][] = [
  ['ripe.net', 'RIPE NCC'],
  ['arin.net', 'ARIN'],
  ['apnic.net', 'APNIC'],
  ['lacnic.net', 'LACNIC'],
  ['afrinic.net', 'AFRINIC'],
];

/** The regional registry whose server `url` is on, else its host. */
export function registryOf(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
  const found = REGISTRIES.find(([domain]) => host === domain || host.endsWith(`.${domain}`));
  return found ? found[1] : host;
}

/** A vCard property's first text value (RFC 7095 jCard: `["vcard", [[name, params, type, value], ...]]`). */
function vcardValue(vcardArray: unknown, property: string): string | null {
  for (const line of list(list(vcardArray)[1])) {
    const [name, , , value] = list(line);
    if (typeof name === 'string' && name.toLowerCase() === property && text(value) !== null) return text(value);
  }
  return null;
}

/** The first entity with role `abuse` and an e-mail address: the network's own before those nested in them. */
function findAbuseEntity(document: Json): AbuseEntity | null {
  let level = list(document.entities).filter(isObject);
  let seen = 0;
  for (let depth = 0; depth < MAX_ENTITY_DEPTH && level.length > 0 && seen < MAX_ENTITIES; depth++) {
    seen += level.length;
    for (const entity of level) {
      const roles = list(entity.roles).map((role) => (typeof role === 'string' ? role.toLowerCase() : ''));
      const email = vcardValue(entity.vcardArray, 'email');
      if (roles.includes('abuse') && email !== null) {
        return { email, name: vcardValue(entity.vcardArray, 'fn'), handle: text(entity.handle) };
      }
    }
    level = level.flatMap((entity) => list(entity.entities).filter(isObject));
  }
  return null;
}

/**
 * The smallest prefix holding a parent handle written as a range (`193.0.0.0 - 193.0.23.255`, RIPE,
 * APNIC, AFRINIC) or a prefix; null for a handle that is a name (ARIN's `NET-8-0-0-0-1`).
 */
function coveringPrefix(handle: string): string | null {
  const prefix = parseCidr(handle.trim());
  if (prefix.ok) return formatCidr(prefix.cidr);
  const [first, last, extra] = handle.split('-').map((part) => parseIp(part.trim()));
  if (!first || !last || extra !== undefined || first.version !== last.version) return null;
  if (BigInt(last.value) < BigInt(first.value)) return null;
  const differing = BigInt(first.value) ^ BigInt(last.value);
  const hostBits = differing === 0n ? 0 : differing.toString(2).length;
  return formatCidr(cidrOf(first, (first.version === 4 ? 32 : 128) - hostBits));
}

/** RFC 9083 §4.2: a link with rel `up`; else the parent handle, asked as `ip/<prefix>` of the same server. */
function parentUrl(document: Json, answeredUrl: string): string | null {
  const up = list(document.links)
    .filter(isObject)
    .find(
      (link) => link.rel === 'up' && text(link.href) !== null && (link.type ?? 'application/rdap+json') !== 'text/html',
    );
  try {
    if (up) return new URL(text(up.href) as string, answeredUrl).href;
    const parent = text(document.parentHandle);
    const prefix = parent === null ? null : coveringPrefix(parent);
    const base = answeredUrl.lastIndexOf('/ip/');
    return prefix === null || base < 0 ? null : new URL(`${answeredUrl.slice(0, base)}/ip/${prefix}`).href;
  } catch {
    return null;
  }
}

function networkFacts(document: Json): RdapNetworkFacts {
  const [first, last] = [text(document.startAddress), text(document.endAddress)];
  return {
    handle: text(document.handle),
    name: text(document.name),
    range: first !== null && last !== null ? `${first} - ${last}` : null,
  };
}

/** An RDAP IP network answer (its body, and the URL that gave it after redirects): its abuse contact, or where to look next. */
export function readAbuseContact(body: string, answeredUrl: string): AbuseReading {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return { kind: 'unreadable', reason: 'answered 200 with a body that is not JSON' };
  }
  if (!isObject(document)) return { kind: 'unreadable', reason: 'answered 200 with JSON that is not an RDAP object' };
  if (document.objectClassName !== undefined && document.objectClassName !== 'ip network') {
    return { kind: 'unreadable', reason: `answered a "${String(document.objectClassName)}" object, not "ip network"` };
  }
  const network = networkFacts(document);
  const entity = findAbuseEntity(document);
  if (entity !== null) return { kind: 'contact', entity, network };
  const url = parentUrl(document, answeredUrl);
  return url === null ? { kind: 'none', network } : { kind: 'parent', url, network };
}

/** What `ip=` names: a public address in its normal form, or why no registry holds it. */
export function parseAbuseAddress(value: string): { ok: true; ip: string } | { ok: false; reason: string } {
  const address = parseIp(value);
  if (address === null) {
    return { ok: false, reason: 'not an IPv4 address (dotted quad, no leading zeros) or an IPv6 address (no %zone)' };
  }
  const ip = formatIp(unmapIpv4(address));
  const special = classifySpecialAddress(ip);
  if (special !== null) {
    return {
      ok: false,
      reason: `${ip} is in ${special.range} (${special.name}, ${special.rfc}), a special-purpose range no regional registry assigns, so no network holds it`,
    };
  }
  return { ok: true, ip };
}
