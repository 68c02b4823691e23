import { parseDomainWhois } from '../../src/whois/parse/parse-domain.ts';
import type { ParsedDomainWhois } from '../../src/whois/parse/types.ts';
import type { CorpusSample, ExpectedWhois } from './expected.ts';
import { loadLikexian } from './load-likexian.ts';
import { loadRichardpenman } from './load-richardpenman.ts';
import { loadWeppos } from './load-weppos.ts';

export const SCORED_FIELDS = [
  'domain_name',
  'registrar',
  'creation_date',
  'expiration_date',
  'updated_date',
  'name_servers',
  'status',
  'dnssec',
] as const;

export type ScoredField = (typeof SCORED_FIELDS)[number];

export interface FieldTally {
  correct: number;
  asserted: number;
}

export interface Mismatch {
  file: string;
  field: ScoredField | 'registered';
  expected: unknown;
  actual: unknown;
}

export interface CorpusScore {
  fields: Record<ScoredField, FieldTally>;
  notFound: FieldTally;
  /** Registered names the parser wrongly called not found. */
  falseNotFound: number;
}

export interface WhoisScore {
  corpora: Map<string, CorpusScore>;
  total: CorpusScore;
  mismatches: Mismatch[];
}

/** Case, spacing and a trailing full stop vary between a registrar's name and how corpora copy it. */
function sameText(a: string, b: string): boolean {
  const clean = (text: string) => text.replace(/\s+/g, ' ').replace(/\.$/, '').trim().toLowerCase();
  return clean(a) === clean(b);
}

function sameSet(actual: string[], expected: string[], normalise: (item: string) => string): boolean {
  const left = new Set(actual.map(normalise));
  const right = new Set(expected.map(normalise));
  return left.size === right.size && [...left].every((item) => right.has(item));
}

// A registrar is the same whether or not a corpus kept the registry handle or URL the reply appends
// ('Tucows Inc. (R11-LROR)', 'Key-Systems GmbH [Tag = KEY-SYSTEMS-DE]', 'Whois Corp.(http://whois.co.kr)').
const REGISTRAR_ANNOTATION = /\s*(?:\(\s*https?:\/\/[^)]*\)|\[tag = [^\]]*\]|\((?=[^)\s]*\d)[^)\s]+\))$/i;

function sameRegistrar(a: string, b: string): boolean {
  return sameText(a.replace(REGISTRAR_ANNOTATION, ''), b.replace(REGISTRAR_ANNOTATION, ''));
}

const nameServerKey = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');
// Corpora copy statuses with the ICANN URL and in the registry's case; the parser drops the URL.
const statusKey = (status: string) =>
  status
    .replace(/\s*\(?https?:\/\/\S+\)?/, '')
    .trim()
    .toLowerCase();

function fieldMatches(field: ScoredField, parsed: ParsedDomainWhois, expected: ExpectedWhois): boolean | undefined {
  if (field === 'name_servers' || field === 'status') {
    const want = expected[field];
    if (want === undefined) return undefined;
    return sameSet(parsed[field], want, field === 'status' ? statusKey : nameServerKey);
  }
  const accept = expected[field];
  if (accept === undefined) return undefined;
  const actual = parsed[field];
  const same = field === 'registrar' ? sameRegistrar : sameText;
  return accept.some((want) => (want === null || actual === null ? want === actual : same(actual, want)));
}

function emptyScore(): CorpusScore {
  const fields = Object.fromEntries(SCORED_FIELDS.map((field) => [field, { correct: 0, asserted: 0 }]));
  return { fields: fields as Record<ScoredField, FieldTally>, notFound: { correct: 0, asserted: 0 }, falseNotFound: 0 };
}

/** Scores already-loaded samples, so a test can score a subset or a hand-made sample. */
export function scoreSamples(samples: CorpusSample[]): WhoisScore {
  const corpora = new Map<string, CorpusScore>();
  const total = emptyScore();
  const mismatches: Mismatch[] = [];
  for (const sample of samples) {
    const parsed = parseDomainWhois(sample.raw, sample.query);
    let corpus = corpora.get(sample.corpus);
    if (!corpus) {
      corpus = emptyScore();
      corpora.set(sample.corpus, corpus);
    }
    for (const field of SCORED_FIELDS) {
      const matches = fieldMatches(field, parsed, sample.expected);
      if (matches === undefined) continue;
      for (const tally of [corpus.fields[field], total.fields[field]]) {
        tally.asserted += 1;
        if (matches) tally.correct += 1;
      }
      if (!matches)
        mismatches.push({ file: sample.file, field, expected: sample.expected[field], actual: parsed[field] });
    }
    if (sample.expected.registered === true && !parsed.registered) {
      corpus.falseNotFound += 1;
      total.falseNotFound += 1;
      mismatches.push({ file: sample.file, field: 'registered', expected: true, actual: false });
    }
    if (sample.notFound) {
      for (const tally of [corpus.notFound, total.notFound]) {
        tally.asserted += 1;
        if (!parsed.registered) tally.correct += 1;
      }
      if (parsed.registered) mismatches.push({ file: sample.file, field: 'registered', expected: false, actual: true });
    }
  }
  return { corpora, total, mismatches };
}

export function loadWhoisCorpora(fixturesRoot: string): CorpusSample[] {
  return [...loadLikexian(fixturesRoot), ...loadRichardpenman(fixturesRoot), ...loadWeppos(fixturesRoot)];
}

/** Loads every corpus under the shared fixtures folder and scores the domain parser against it. */
export function scoreWhoisCorpora(fixturesRoot: string): WhoisScore {
  return scoreSamples(loadWhoisCorpora(fixturesRoot));
}
