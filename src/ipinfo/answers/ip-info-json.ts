import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { escapeControlCharactersInJson } from '../../http/control-characters.ts';
import type { Location } from '../data/geo.ts';
import type { IpDescription, Security } from './describe-ip.ts';
import { CONNECTION_TYPES, IpInfoBody, SECURITY_SOURCES } from './json-schema.ts';

/** An answer of the /json routes (ip-answers.ts's IpInfo, which imports this file). */
type IpInfo = IpDescription & { hostname?: string; mappedFrom?: string };

/** The JSON the /json routes' response schema makes of an answer (field order included). */
const compiledIpInfo = SerializerSelector()({}, {})({
  schema: IpInfoBody,
  method: 'GET',
  url: '/api/v1/json',
  httpStatus: '200',
}) as (answer: IpInfo) => string;

/**
 * An answer as the response schema serialises it, with DEL and C1 controls escaped as every JSON
 * answer is sent (http/control-characters.ts). Written by hand for the shapes describeIp makes: the
 * compiled serialiser plus the escape over the whole text were 7 µs of a 18 µs batch item
 * (docs/performance.md, "Batches of new addresses"). Anything else (a value of an unexpected type,
 * `network.abuse`) goes to the compiled one, so the bytes are always its bytes
 * (test/ipinfo/answers/ip-info-json.test.ts compares the two).
 */
export function ipInfoJson(answer: IpInfo): string {
  return handWritten(answer) ?? schemaIpInfoJson(answer);
}

/** What the response schema's compiled serialiser writes, escaped as every JSON answer is sent: ipInfoJson's reference. */
export function schemaIpInfoJson(answer: IpInfo): string {
  return escapeControlCharactersInJson(compiledIpInfo(answer));
}

/**
 * Undefined for a value this writer does not write as the compiled one would. The compiled one
 * writes required properties first, then the optional ones in the schema's order.
 */
function handWritten(answer: IpInfo): string | undefined {
  unwritable = false;
  const { ipv6, mappedFrom, hostname, type, class: ipClass, special, location, network, security } = answer;
  const securityWritten = securityJson(security);
  if (securityWritten === undefined) return undefined;
  let json = `{"ip":${jsonString(answer.ip)},"security":${securityWritten}`;
  if (ipv6 !== undefined) json += `,"ipv6":${jsonString(ipv6)}`;
  if (mappedFrom !== undefined) json += `,"mappedFrom":${jsonString(mappedFrom)}`;
  if (hostname !== undefined) json += `,"hostname":${jsonString(hostname)}`;
  if (type !== undefined) json += `,"type":${literal(CONNECTION_TYPES, type)}`;
  if (ipClass !== undefined) json += `,"class":${literal(CLASSES, ipClass)}`;
  if (special !== undefined) {
    json += `,"special":{"kind":${jsonString(special.kind)},"range":${jsonString(special.range)},"name":${jsonString(special.name)},"rfc":${jsonString(special.rfc)}}`;
  }
  if (location !== undefined) json += `,"location":${locationJson(location)}`;
  if (network !== undefined) json += `,"network":${networkJson(network)}`;
  return unwritable ? undefined : `${json}}`;
}

const CLASSES = ['A', 'B', 'C', 'D', 'E'] as const;
const RPKI_STATES = ['valid', 'invalid', 'not-found'] as const;
const RPKI_REASONS = ['asn', 'length'] as const;

/** A value of a union of literals (the compiled serialiser throws for any other, so it is left to it). */
function literal(values: readonly string[], value: unknown): string {
  return values.includes(value as string) ? `"${value}"` : cannotWrite();
}

/** Set by the writers below when they meet a value they cannot write as the compiled serialiser would. */
let unwritable = false;
function cannotWrite(): string {
  unwritable = true;
  return '';
}

function jsonString(value: unknown): string {
  if (typeof value !== 'string') return cannotWrite();
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // Printable ASCII but " and \, or a character past C1 outside the surrogates: written as it is.
    if (
      code < 0x20 ||
      code === 0x22 ||
      code === 0x5c ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0xd800 && code <= 0xdfff)
    ) {
      return escapeControlCharactersInJson(JSON.stringify(value));
    }
  }
  return `"${value}"`;
}

/** fast-json-stringify's asNumber for the numbers an answer holds. */
function jsonNumber(value: unknown): string {
  if (typeof value !== 'number' || Number.isNaN(value)) return cannotWrite();
  return Number.isFinite(value) ? `${value}` : 'null';
}

function jsonInteger(value: unknown): string {
  return Number.isInteger(value) ? `${value}` : cannotWrite();
}

/** The location's fields in the schema's order, each with how it is written. */
const LOCATION_FIELDS: readonly [keyof Location, (value: unknown) => string][] = [
  ['country', jsonString],
  ['countryCode', jsonString],
  ['city', jsonString],
  ['region', jsonString],
  ['regionCode', jsonString],
  ['continent', jsonString],
  ['continentCode', jsonString],
  ['latitude', jsonNumber],
  ['longitude', jsonNumber],
  ['accuracyRadius', jsonInteger],
  ['timezone', jsonString],
  ['postalCode', jsonString],
];

/** Written once per City answer object, which geo.ts shares between the addresses of one record. */
const locations = new WeakMap<Location, string>();
function locationJson(location: Location): string {
  let json = locations.get(location);
  if (json !== undefined) return json;
  json = '';
  for (const [name, write] of LOCATION_FIELDS) {
    const value = location[name];
    if (value !== undefined) json += `,"${name}":${write(value)}`;
  }
  json = json === '' ? '{}' : `{${json.slice(1)}}`;
  if (!unwritable) locations.set(location, json);
  return json;
}

function networkJson(network: NonNullable<IpDescription['network']> & { abuse?: unknown }): string {
  if (network.abuse !== undefined) return cannotWrite();
  const { provider, asn, route, rpki } = network;
  let json = '';
  if (provider !== undefined) json += `,"provider":${jsonString(provider)}`;
  if (asn !== undefined) json += `,"asn":${jsonString(asn)}`;
  if (route !== undefined) json += `,"route":${jsonString(route)}`;
  if (rpki !== undefined) {
    if (!Array.isArray(rpki.vrps)) return cannotWrite();
    json += `,"rpki":{"status":${literal(RPKI_STATES, rpki.status)},"vrps":[`;
    for (const [i, vrp] of rpki.vrps.entries()) {
      json += `${i === 0 ? '' : ','}{"prefix":${jsonString(vrp.prefix)},"maxLength":${jsonInteger(vrp.maxLength)},"asn":${jsonString(vrp.asn)}}`;
    }
    json += ']';
    if (rpki.reason !== undefined) json += `,"reason":${literal(RPKI_REASONS, rpki.reason)}`;
    json += '}';
  }
  return json === '' ? '{}' : `{${json.slice(1)}}`;
}

/**
 * `security` by its sources (describeIp shares one frozen list per data snapshot and family) and
 * its flags: a few shapes, each written once.
 */
const securities = new WeakMap<readonly string[], string[]>();
function securityJson(security: Security): string | undefined {
  const { bogon, proxy, vpn, tor, hosting, sources } = security;
  if (typeof bogon !== 'boolean' || !Array.isArray(sources)) return undefined;
  const code = (bogon ? 81 : 0) + flagCode(proxy) * 27 + flagCode(vpn) * 9 + flagCode(tor) * 3 + flagCode(hosting);
  if (code < 0) return undefined;
  let shapes = securities.get(sources);
  if (shapes !== undefined && shapes[code] !== undefined) return shapes[code];
  let json = `{"bogon":${bogon},"sources":[${sources.map((source) => literal(SECURITY_SOURCES, source)).join(',')}]`;
  if (proxy !== undefined) json += `,"proxy":${proxy}`;
  if (vpn !== undefined) json += `,"vpn":${vpn}`;
  if (tor !== undefined) json += `,"tor":${tor}`;
  if (hosting !== undefined) json += `,"hosting":${hosting}`;
  json += '}';
  if (unwritable) return undefined;
  if (Object.isFrozen(sources)) {
    if (shapes === undefined) {
      shapes = [];
      securities.set(sources, shapes);
    }
    shapes[code] = json;
  }
  return json;
}

/** 0 absent, 1 false, 2 true; negative (so the code is) for anything else. */
function flagCode(flag: boolean | undefined): number {
  return flag === undefined ? 0 : flag === false ? 1 : flag === true ? 2 : -1000;
}
