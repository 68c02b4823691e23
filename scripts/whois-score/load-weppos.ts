import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type CorpusSample, type ExpectedWhois, leadingCalendarDate } from './expected.ts';

/** One `#method` section of a weppos `.expected` file: its assertion lines without the leading `%s`. */
type Sections = Map<string, string[]>;

function readSections(text: string): Sections {
  const sections: Sections = new Map();
  let current: string[] | undefined;
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//')) continue;
    if (trimmed.startsWith('#')) {
      current = [];
      sections.set(trimmed.slice(1).trim(), current);
    } else if (current && trimmed.startsWith('%s')) {
      current.push(trimmed.slice(2).trim());
    }
  }
  return sections;
}

/** A Ruby literal on the right of `==`: "string", nil, true/false, :symbol or ["array"]. */
function rubyLiteral(text: string): unknown {
  if (text === 'nil') return null;
  if (text === 'true' || text === 'false') return text === 'true';
  if (text.startsWith(':')) return { symbol: text.slice(1) };
  if (text.startsWith('"') || text.startsWith('[')) return JSON.parse(text) as unknown;
  return undefined;
}

/** The value asserted by `<accessor> == <literal>` in a section, e.g. accessor '' or '.name'. */
function assertedValue(lines: string[], accessor: string): unknown {
  for (const line of lines) {
    const match = /^(\S*?)\s*==\s+(.+)$/.exec(line);
    if (match && match[1] === accessor) return rubyLiteral((match[2] ?? '').trim());
  }
  return undefined;
}

function expectedDate(lines: string[] | undefined): (string | null)[] | undefined {
  if (!lines) return undefined;
  for (const line of lines) {
    const time = /^%TIME\{(.*)\}$/.exec(line);
    if (time) return [leadingCalendarDate(time[1] ?? '')];
  }
  return assertedValue(lines, '') === null ? [null] : undefined;
}

/** weppos models a registrar as id, name and organisation; either text counts as naming it. */
function expectedRegistrar(lines: string[] | undefined): (string | null)[] | undefined {
  if (!lines) return undefined;
  if (assertedValue(lines, '') === null) return [null];
  const names = [assertedValue(lines, '.name'), assertedValue(lines, '.organization')];
  const given = names.filter((name): name is string => typeof name === 'string');
  if (given.length > 0) return given;
  return names.every((name) => name === null) ? [null] : undefined;
}

function expectedNameServers(lines: string[] | undefined): string[] | undefined {
  if (!lines) return undefined;
  const whole = assertedValue(lines, '');
  if (Array.isArray(whole)) return whole.filter((item): item is string => typeof item === 'string');
  const names: string[] = [];
  for (const line of lines) {
    const match = /^\[\d+\]\.name\s+==\s+"(.*)"$/.exec(line);
    if (match?.[1] !== undefined) names.push(match[1]);
  }
  const size = lines.map((line) => /^%SIZE\{(\d+)\}$/.exec(line)).find(Boolean);
  if (names.length === 0 && size?.[1] !== '0') return undefined;
  return names;
}

function buildExpected(sections: Sections): ExpectedWhois {
  const expected: ExpectedWhois = {};
  const domain = sections.get('domain');
  const domainValue = domain ? assertedValue(domain, '') : undefined;
  if (typeof domainValue === 'string' || domainValue === null) expected.domain_name = [domainValue];
  expected.registrar = expectedRegistrar(sections.get('registrar'));
  expected.creation_date = expectedDate(sections.get('created_on'));
  expected.expiration_date = expectedDate(sections.get('expires_on') ?? sections.get('expires_on '));
  expected.updated_date = expectedDate(sections.get('updated_on'));
  expected.name_servers = expectedNameServers(sections.get('nameservers'));
  const status = sections.get('status');
  const statusValue = status ? assertedValue(status, '') : undefined;
  // Only the array form lists the registry's words; the symbol form is weppos's own summary.
  if (Array.isArray(statusValue)) expected.status = statusValue.filter((item) => typeof item === 'string');
  const registered = sections.get('registered?');
  const registeredValue = registered ? assertedValue(registered, '') : undefined;
  if (typeof registeredValue === 'boolean') expected.registered = registeredValue;
  return expected;
}

function listExpectedFiles(folder: string): string[] {
  return (readdirSync(folder, { recursive: true }) as string[]).filter((name) => name.endsWith('.expected')).sort();
}

/** weppos/whois-parser: responses/<server>/<tld>/<case>.txt beside <case>.expected (RSpec-like). */
export function loadWeppos(fixturesRoot: string): CorpusSample[] {
  const folder = path.join(fixturesRoot, 'weppos-whois-parser', 'responses');
  return listExpectedFiles(folder).map((name) => {
    const sections = readSections(readFileSync(path.join(folder, name), 'utf8'));
    const available = sections.get('available?');
    const txt = name.replace(/\.expected$/, '.txt');
    return {
      corpus: 'weppos-whois-parser',
      file: `weppos-whois-parser/responses/${txt}`,
      raw: readFileSync(path.join(folder, txt), 'utf8'),
      expected: buildExpected(sections),
      notFound: available !== undefined && assertedValue(available, '') === true,
    };
  });
}
