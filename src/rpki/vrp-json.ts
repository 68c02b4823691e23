import { MAX_ASN, parseAsn } from '../net/asn.ts';
import { parseCidr } from '../net/cidr.ts';
import type { VrpEntry } from './vrp-file.ts';

export interface VrpJsonParse {
  readonly entries: VrpEntry[];
  readonly malformed: { readonly index: number; readonly reason: string }[];
  /** The validator's own time of the set (`metadata.generated` or `generatedTime`), ms; NaN when absent. */
  readonly generatedAt: number;
}

/**
 * The JSON export that rpki-client (`vrps.json`), Routinator (`-f json`), OctoRPKI and Cloudflare's
 * rpki.json share: `{"metadata": {...}, "roas": [{"prefix", "maxLength", "asn"}, ...]}`, `asn` a number
 * (rpki-client) or `"AS123"` (the others), `maxLength` absent meaning the prefix's own length (RFC 6482).
 * Throws when the text is not such a document at all; an entry that is not a VRP is counted in
 * `malformed` so the caller can refuse a set with too many.
 */
export function parseVrpJson(text: string): VrpJsonParse {
  if (/^\s*</.test(text)) throw new Error('an HTML or XML page, not a VRP export');
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`not complete JSON (${(error as Error).message}): a download cut short?`);
  }
  const roas = (document as { roas?: unknown } | null)?.roas;
  if (!Array.isArray(roas)) throw new Error('JSON without a "roas" array: not a VRP export');
  const entries: VrpEntry[] = [];
  const malformed: VrpJsonParse['malformed'][number][] = [];
  roas.forEach((roa: unknown, index) => {
    const entry = readRoa(roa);
    if (typeof entry === 'string') malformed.push({ index, reason: entry });
    else entries.push(entry);
  });
  return { entries, malformed, generatedAt: generatedAt((document as { metadata?: unknown }).metadata) };
}

function readRoa(roa: unknown): VrpEntry | string {
  if (typeof roa !== 'object' || roa === null) return 'not an object';
  const { prefix, maxLength, asn } = roa as Record<string, unknown>;
  if (typeof prefix !== 'string' || !prefix.includes('/')) return 'no prefix';
  const parsed = parseCidr(prefix);
  if (!parsed.ok) return `prefix ${prefix}: ${parsed.reason}`;
  const bits = parsed.cidr.version === 4 ? 32 : 128;
  const longest = maxLength === undefined ? parsed.cidr.prefixLength : maxLength;
  if (typeof longest !== 'number' || !Number.isInteger(longest)) return 'maxLength not an integer';
  if (longest < parsed.cidr.prefixLength || longest > bits) {
    return `maxLength ${longest} outside /${parsed.cidr.prefixLength}../${bits}`;
  }
  const origin = typeof asn === 'string' ? parseAsn(asn) : asn;
  if (typeof origin !== 'number' || !Number.isInteger(origin) || origin < 0 || origin > MAX_ASN) {
    return `asn ${JSON.stringify(asn)} not an AS number`;
  }
  return { cidr: parsed.cidr, maxLength: longest, asn: origin };
}

/** rpki-client and Routinator: `generated` in Unix seconds; Routinator also `generatedTime`, ISO 8601. */
function generatedAt(metadata: unknown): number {
  if (typeof metadata !== 'object' || metadata === null) return Number.NaN;
  const { generated, generatedTime } = metadata as Record<string, unknown>;
  if (typeof generated === 'number' && Number.isFinite(generated) && generated > 0) return generated * 1000;
  if (typeof generatedTime === 'string') return Date.parse(generatedTime);
  return Number.NaN;
}
