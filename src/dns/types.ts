import { createRequire } from 'node:module';

// dns-packet's own type table (CommonJS, without type declarations of its own).
const dnsPacketTypes = createRequire(import.meta.url)('dns-packet/types.js') as {
  toString(type: number): string;
  toType(name: string): number;
};

/**
 * Record type names and numbers. dns-packet knows most types by name but not SVCB (64) and HTTPS
 * (65, RFC 9460): it calls them `UNKNOWN_64` and `UNKNOWN_65`, and takes `UNKNOWN_<n>` as the way to
 * ask for any type it has no name for. These functions put the real names back.
 */
const EXTRA_TYPES: Record<string, number> = { SVCB: 64, HTTPS: 65 };
const EXTRA_NAMES = new Map(Object.entries(EXTRA_TYPES).map(([name, number]) => [number, name]));

/** The mnemonic of a type number (`A`, `HTTPS`), or `TYPE<n>` (RFC 3597 §5) when it has none. */
export function typeName(number: number): string {
  const extra = EXTRA_NAMES.get(number);
  if (extra !== undefined) return extra;
  const name = dnsPacketTypes.toString(number);
  return name.startsWith('UNKNOWN_') ? `TYPE${number}` : name;
}

/** The number of a type mnemonic (case-insensitive; `TYPE<n>` too), or undefined when unknown. */
export function typeNumber(name: string): number | undefined {
  const upper = name.toUpperCase();
  const extra = EXTRA_TYPES[upper];
  if (extra !== undefined) return extra;
  const generic = /^(?:TYPE|UNKNOWN_)(\d{1,5})$/.exec(upper);
  if (generic) {
    const number = Number(generic[1]);
    return number >= 1 && number <= 65535 ? number : undefined;
  }
  // '*' is dns-packet's spelling of ANY, not a mnemonic a user types.
  if (upper === '*') return undefined;
  const number = dnsPacketTypes.toType(upper);
  return number === 0 ? undefined : number;
}

/** The name dns-packet encodes and decodes a type by: its own mnemonic, or `UNKNOWN_<n>`. */
export function packetTypeName(name: string): string {
  const number = typeNumber(name);
  if (number === undefined) return name;
  return dnsPacketTypes.toString(number);
}

/** A type name as dns-packet decoded it, with the names dns-packet lacks put back (`UNKNOWN_65` -> `HTTPS`). */
export function recordTypeName(packetName: string): string {
  const generic = /^UNKNOWN_(\d+)$/.exec(packetName);
  if (generic === null) return packetName;
  return EXTRA_NAMES.get(Number(generic[1])) ?? packetName;
}

/**
 * Types that are not records one asks a resolver for: OPT (41), TKEY and TSIG (249-250), the zone
 * transfers IXFR and AXFR (251-252), MAILB and MAILA (253-254, obsolete) and ANY (255), whose
 * answer is whatever the server chooses (RFC 8482) and so not "the records of this type".
 */
const NOT_QUERYABLE = new Set([41, 249, 250, 251, 252, 253, 254, 255]);

/**
 * The type to ask for, in the form records of it are decoded with (`A`, `HTTPS`, `UNKNOWN_99`), or
 * undefined for an unknown mnemonic, a number outside 1-65535, or a type not queryable (above).
 * Accepts mnemonics in any case, `TYPE<n>` and plain numbers.
 */
export function queryableType(input: string): string | undefined {
  const number = /^\d{1,5}$/.test(input) ? Number(input) : typeNumber(input);
  if (number === undefined || number < 1 || number > 65535 || NOT_QUERYABLE.has(number)) return undefined;
  return recordTypeName(dnsPacketTypes.toString(number));
}

/** True for a type queryableType refuses because of what it is (ANY, AXFR...), not because it is unknown. */
export function isMetaType(input: string): boolean {
  const number = /^\d{1,5}$/.test(input) ? Number(input) : typeNumber(input);
  return number !== undefined && NOT_QUERYABLE.has(number);
}
