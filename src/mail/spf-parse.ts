import { isIPv4, isIPv6 } from 'node:net';

/** One SPF mechanism (RFC 7208 §5) as written; `domain` is the name it looks up, if any. */
export type SpfMechanism = {
  qualifier: '+' | '-' | '~' | '?';
  name: 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists';
  /** What follows the name without the ":" (`_spf.example.com`, `192.0.2.0/24`, `/24`), or null. */
  value: string | null;
  /** The domain-spec this mechanism queries (null: the current domain, or none for all/ip4/ip6). */
  domain: string | null;
};

export type SpfModifier = { name: string; value: string };

export type SpfRecord = { mechanisms: SpfMechanism[]; modifiers: SpfModifier[]; errors: string[] };

const MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);
const MODIFIER_NAME = /^[A-Za-z][A-Za-z0-9._-]*$/;
// A macro-string (RFC 7208 §7.1): literal visible characters except "%", or a macro.
const MACRO_STRING = /^(?:[\x21-\x24\x26-\x7e]|%\{[slodiphcrtv]\d*r?[.\-+,/_=]*\}|%%|%_|%-)*$/i;

/** True for a TXT record an SPF verifier takes (RFC 7208 §4.5: "v=spf1" then a space or the end). */
export function isSpfRecord(text: string): boolean {
  return /^v=spf1(?: |$)/i.test(text);
}

/** True when a domain-spec has macros: what it names depends on the message, so it is not followed. */
export function hasMacros(domainSpec: string): boolean {
  return domainSpec.includes('%');
}

/** Parses an SPF record (already known to start with v=spf1). Pure; syntax errors as sentences. */
export function parseSpfRecord(text: string): SpfRecord {
  const mechanisms: SpfMechanism[] = [];
  const modifiers: SpfModifier[] = [];
  const errors: string[] = [];
  const terms = text.split(' ').slice(1);
  // Several spaces in a row are allowed (1*SP): the empty pieces between them are skipped.
  for (const term of terms.filter((term) => term !== '')) {
    const modifier = /^([^:/=]+)=(.*)$/.exec(term);
    if (modifier) {
      const [, name = '', value = ''] = modifier;
      if (!MODIFIER_NAME.test(name)) errors.push(`"${term}" is not a valid modifier`);
      else if (MECHANISMS.has(name.toLowerCase())) {
        errors.push(`"${term}" uses "=" where the ${name.toLowerCase()} mechanism takes ":"`);
      } else {
        const lower = name.toLowerCase();
        if ((lower === 'redirect' || lower === 'exp') && modifiers.some((seen) => seen.name === lower)) {
          errors.push(`the ${lower}= modifier appears more than once`);
        }
        if ((lower === 'redirect' || lower === 'exp') && !validDomainSpec(value)) {
          errors.push(`"${term}": ${JSON.stringify(value)} is not a valid domain`);
        }
        modifiers.push({ name: lower === 'redirect' || lower === 'exp' ? lower : name, value });
      }
      continue;
    }
    const parsed = parseMechanism(term);
    if (typeof parsed === 'string') errors.push(parsed);
    else mechanisms.push(parsed);
  }
  return { mechanisms, modifiers, errors };
}

function parseMechanism(term: string): SpfMechanism | string {
  const qualifier = '+-~?'.includes(term[0] ?? '') ? (term[0] as SpfMechanism['qualifier']) : '+';
  const body = '+-~?'.includes(term[0] ?? '') ? term.slice(1) : term;
  const match = /^([A-Za-z0-9]+)(.*)$/.exec(body);
  const name = match?.[1]?.toLowerCase() ?? '';
  const rest = match?.[2] ?? '';
  if (!MECHANISMS.has(name)) return `"${term}" is not a known mechanism`;
  const mechanism = name as SpfMechanism['name'];
  const value = rest.startsWith(':') ? rest.slice(1) : rest === '' ? null : rest;
  const invalid = (why: string) => `"${term}": ${why}`;
  switch (mechanism) {
    case 'all':
      return rest === '' ? { qualifier, name: mechanism, value: null, domain: null } : invalid('all takes no value');
    case 'include':
    case 'exists':
      if (!rest.startsWith(':') || !validDomainSpec(rest.slice(1))) return invalid(`${name} needs ":" and a domain`);
      return { qualifier, name: mechanism, value, domain: rest.slice(1) };
    case 'ptr':
      if (rest === '') return { qualifier, name: mechanism, value: null, domain: null };
      if (!rest.startsWith(':') || !validDomainSpec(rest.slice(1))) return invalid('ptr takes ":" and a domain');
      return { qualifier, name: mechanism, value, domain: rest.slice(1) };
    case 'a':
    case 'mx': {
      const cidr = /^(?::([^/]+))?((?:\/(\d+))?(?:\/\/(\d+))?)$/.exec(rest);
      if (!cidr) return invalid(`${name} takes an optional ":domain" and "/prefix" lengths`);
      const [, domain, , v4, v6] = cidr;
      if (domain !== undefined && !validDomainSpec(domain)) return invalid(`"${domain}" is not a valid domain`);
      if (v4 !== undefined && Number(v4) > 32) return invalid('the IPv4 prefix length is over 32');
      if (v6 !== undefined && Number(v6) > 128) return invalid('the IPv6 prefix length is over 128');
      return { qualifier, name: mechanism, value, domain: domain ?? null };
    }
    case 'ip4':
    case 'ip6': {
      const network = /^:([^/]+)(?:\/(\d{1,3}))?$/.exec(rest);
      const max = name === 'ip4' ? 32 : 128;
      const valid = name === 'ip4' ? isIPv4 : isIPv6;
      if (!network || !valid(network[1] ?? '') || (network[2] !== undefined && Number(network[2]) > max)) {
        return invalid(
          `${name} needs ":" and an ${name === 'ip4' ? 'IPv4' : 'IPv6'} address with an optional /0-${max}`,
        );
      }
      return { qualifier, name: mechanism, value, domain: null };
    }
  }
}

/** A domain-spec: a macro-string whose end is a top label of letters (or a macro). */
function validDomainSpec(spec: string): boolean {
  if (spec === '' || !MACRO_STRING.test(spec)) return false;
  if (hasMacros(spec)) return true;
  const labels = (spec.endsWith('.') ? spec.slice(0, -1) : spec).split('.');
  const top = labels.at(-1) ?? '';
  return labels.length >= 2 && labels.every((label) => label !== '' && label.length <= 63) && !/^\d+$/.test(top);
}
