// Each pattern is anchored to the start of a line (after comment marks) so that a disclaimer which
// merely mentions "not found" cannot mark a registered domain as free. The list was learnt from the
// not-found replies in the shared corpora; the trailing comment names a registry that answers so.
const NOT_FOUND_LINES: readonly RegExp[] = [
  /^no match(?:es)?\b/i, // Verisign, .mo
  /^nincs tal[aá]lat\b/i, // .hu: 'Nincs talalat / No match'
  /^\S+ no match$/i, // .pt
  /^not found\b/i, // Afilias, .ca ('Not found: x.ca')
  /^not registered\b/i, // .ie
  /^no data found\b/i, // Neustar, .in, .us
  /^no entries found\b/i, // AFNIC, ROTLD, .ua, .hr
  /^no matching (?:record|domain name)\b/i, // CNNIC, pairNIC
  /^no (?:records|domain records) (?:matching|were found)\b/i, // .ax, .coop
  /^no (?:objects? )?found\b/i, // TWNIC, .ma
  /^(?:unfortunately, )?no results were found\b/i, // .co.pl
  /^no such domain\b/i, // JANET, .lu, .za.org
  /^nothing found\b/i, // nic.at, KazNIC
  /^object (?:"[^"]*" )?not found\b/i, // puntCAT, Musedoma, smallregistry
  /^"?[^\s"]+"? not found\b/i, // .se: "x.se" not found.
  /^domain (?:name )?"?[^\s"]+"? (?:is |was )?not (?:found|regist(?:e)?red)\b/i, // .se, .ai, registrars
  /^the domain (?:name )?(?:\S+ )?(?:is|was|has) not (?:been )?(?:found|registered)\b/i, // SWITCH, .im, .pr
  /^this domain name has not been registered\b/i, // Nominet gTLDs
  /^domain (?:name )?not found\b/i, // Donuts, PIR, .ee, .fi
  /^domain is not registered\b/i, // RNIDS
  /^domain name \S+ does not exist\b/i, // .bg
  /^the queried object does not exist\b/i, // CentralNic, CORE
  /^sorry, but domain: .* not found\b/i, // .uz
  /^invalid query or domain name not known\b/i, // .cf
  /^we do not have an entry in our database matching\b/i, // SWITCH (old)
  /^we could not find the requested domain\b/i, // udag
  /^there is no information available on the domain\b/i, // .es
  /^this domain is not available in our whois database\b/i, // .lk
  /^(?:>+\s*)?(?:domain )?\S+ is (?:free|available)\b/i, // SIDN, Uniregistry, .co.ca, .tm
  /^available$/i, // ZACR
  /^(?:domain )?status:\s*(?:free|available|not registered|no object found)\s*$/i, // DENIC, .it, .ca, .gs
  /^query_status:\s*220 available\b/i, // .nz
  /^you queried for \S+ but this server does not have\b/i, // IANA
  /^organisation:\s*not assigned$/i, // IANA, for a TLD that is not delegated
  /^second level domain name is reserved\b/i, // .name: a reserved name has no registration
  /^상기 도메인이름은 등록되어 있지 않습니다/, // KISA (.kr): "the domain name is not registered"
];

function stripCommentMarks(line: string): string {
  // '%ERROR:103: Domain is not registered', '%error 230 No Objects Found', '*** Nothing found'
  return line
    .replace(/^[\s%#*]+/, '')
    .replace(/^error:?\s*(?:\d+:?\s*)?/i, '')
    .trim();
}

/** True when the reply says the queried name is not registered (not found, free, available). */
export function isNotFound(raw: string): boolean {
  for (const line of raw.split(/\r?\n/)) {
    const text = stripCommentMarks(line);
    if (text === '') continue;
    if (NOT_FOUND_LINES.some((pattern) => pattern.test(text))) return true;
  }
  return false;
}
