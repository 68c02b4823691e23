import { isIP } from 'node:net';
import { normaliseQueryName } from '../../dns/names.ts';
import { normaliseIp } from '../../net/ip-address.ts';

export type ProbeHost = { ok: true; host: string; literal: 4 | 6 | null } | { ok: false; reason: string };

const MAX_HOST_LENGTH = 253;

/**
 * The `host` of /ping and /traceroute: an IP address (IPv6 also in brackets; IPv4-mapped IPv6 is
 * taken as IPv4) or a host name (IDN allowed). The tools never see this text, only the address it
 * resolves to; still, anything that is not plainly a host is refused with the reason, so `-f`,
 * `a;reboot` or a line break get a 400 instead of a lookup.
 */
export function parseProbeHost(raw: string): ProbeHost {
  if (raw === '') return { ok: false, reason: 'is empty' };
  if (raw.length > MAX_HOST_LENGTH) return { ok: false, reason: `is longer than ${MAX_HOST_LENGTH} characters` };
  // Control characters first, with a clear word: JSON.stringify shows them escaped.
  const control = [...raw].find((char) => char < ' ' || char === '\u007f');
  if (control !== undefined) return { ok: false, reason: `contains the control character ${JSON.stringify(control)}` };
  const unbracketed = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  const version = isIP(unbracketed);
  if (version !== 0) {
    if (unbracketed.includes('%'))
      return { ok: false, reason: 'has an IPv6 zone index (%...), which names an interface of the server' };
    const address = normaliseIp(unbracketed);
    if (address === null) return { ok: false, reason: 'is not a valid IP address' };
    return { ok: true, host: address, literal: isIP(address) === 4 ? 4 : 6 };
  }
  if (unbracketed !== raw) return { ok: false, reason: 'has brackets but no IPv6 address inside' };
  const name = normaliseQueryName(raw);
  if (!name.ok) return { ok: false, reason: `is not a host name or an IP address (${name.reason})` };
  if (name.name === '.') return { ok: false, reason: 'is the DNS root, not a host' };
  const badLabel = name.name.split('.').find((label) => label.startsWith('-') || label.endsWith('-'));
  if (badLabel !== undefined) {
    return { ok: false, reason: `is not a host name (label "${badLabel}" starts or ends with "-")` };
  }
  return { ok: true, host: name.name, literal: null };
}
