/** The largest AS number: 32 bits (RFC 6793). */
export const MAX_ASN = 4_294_967_295;

/** `AS15169`, `as15169` or `15169` -> 15169; null for anything else (leading zeros included). */
export function parseAsn(text: string): number | null {
  const match = /^(?:AS)?(0|[1-9][0-9]{0,9})$/i.exec(text);
  if (match === null) return null;
  const asn = Number(match[1]);
  return asn <= MAX_ASN ? asn : null;
}
