import { parseTagList } from './tag-list.ts';

/** The DMARC tags the API reports (RFC 7489 §6.3), as written in the record; null when absent. */
export type DmarcRecord = {
  p: string | null;
  sp: string | null;
  pct: number | null;
  rua: string[];
  ruf: string[];
  adkim: string | null;
  aspf: string | null;
  /** Plain sentences: syntax errors and policy problems (`p=none`). */
  problems: string[];
};

const POLICIES = ['none', 'quarantine', 'reject'];
const ALIGNMENTS = ['r', 's'];
const KNOWN_TAGS = new Set(['v', 'p', 'sp', 'pct', 'rua', 'ruf', 'adkim', 'aspf', 'fo', 'rf', 'ri', 'np', 't', 'psd']);

/** True for a TXT record a DMARC receiver takes (RFC 7489 §6.6.3: it starts with `v=DMARC1`). */
export function isDmarcRecord(text: string): boolean {
  return /^v\s*=\s*DMARC1\s*(;|$)/.test(text);
}

/** Parses one `_dmarc` TXT record (already known to start with v=DMARC1). Pure. */
export function parseDmarcRecord(text: string): DmarcRecord {
  const list = parseTagList(text);
  const problems = list.errors.map((error) => `syntax error: ${error}`);
  const tag = (name: string) => list.tags.get(name) ?? null;
  const policy = (name: 'p' | 'sp') => {
    const value = tag(name);
    if (value !== null && !POLICIES.includes(value.toLowerCase())) {
      problems.push(`syntax error: ${name}=${value} is not none, quarantine or reject`);
    }
    return value === null ? null : value.toLowerCase();
  };
  const alignment = (name: 'adkim' | 'aspf') => {
    const value = tag(name);
    if (value !== null && !ALIGNMENTS.includes(value.toLowerCase())) {
      problems.push(`syntax error: ${name}=${value} is not r (relaxed) or s (strict)`);
    }
    return value === null ? null : value.toLowerCase();
  };
  const p = policy('p');
  const sp = policy('sp');
  if (p === null) {
    problems.push(
      'syntax error: the required tag p= is missing (receivers then apply no policy, or p=none when rua= is valid)',
    );
  } else if (p === 'none') {
    problems.push('p=none: receivers only report and deliver mail that fails DMARC; use quarantine or reject to act');
  }
  const pctText = tag('pct');
  let pct: number | null = null;
  if (pctText !== null) {
    if (/^\d{1,3}$/.test(pctText) && Number(pctText) <= 100) pct = Number(pctText);
    else problems.push(`syntax error: pct=${pctText} is not a whole number from 0 to 100`);
  }
  const uris = (name: 'rua' | 'ruf') => {
    const value = tag(name);
    if (value === null) return [];
    const list = value
      .split(',')
      .map((uri) => uri.trim())
      .filter((uri) => uri !== '');
    for (const uri of list) {
      // A size limit may follow the URI ("mailto:a@b.example!10m", RFC 7489 §6.2).
      if (!/^[a-z][a-z0-9+.-]*:[^\s!]+(![0-9]+[kmgt]?)?$/i.test(uri)) {
        problems.push(`syntax error: ${name}= has "${uri}", which is not a URI such as mailto:reports@example.com`);
      }
    }
    if (list.length === 0) problems.push(`syntax error: ${name}= is empty`);
    return list;
  };
  const rua = uris('rua');
  const ruf = uris('ruf');
  const adkim = alignment('adkim');
  const aspf = alignment('aspf');
  if (list.order[0] !== 'v') problems.push('syntax error: v=DMARC1 must be the first tag');
  for (const name of list.order) {
    if (!KNOWN_TAGS.has(name)) problems.push(`unknown tag ${name}= (receivers ignore it; a typo?)`);
  }
  return { p, sp, pct, rua, ruf, adkim, aspf, problems };
}
