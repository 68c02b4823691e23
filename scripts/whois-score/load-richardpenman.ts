import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type CorpusSample, type ExpectedWhois, leadingCalendarDate } from './expected.ts';

type JsonValue = string | null | JsonValue[];

function asList(value: JsonValue | undefined): (string | null)[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.flatMap((item) => asList(item) ?? []);
  return [value];
}

function dates(value: JsonValue | undefined): (string | null)[] | undefined {
  return asList(value)?.map((item) => (item === null ? null : leadingCalendarDate(item)));
}

/** python-whois: whois/<domain> beside expected/<domain>, a one-line JSON object. */
export function loadRichardpenman(fixturesRoot: string): CorpusSample[] {
  const folder = path.join(fixturesRoot, 'richardpenman-whois');
  return readdirSync(path.join(folder, 'expected')).map((name) => {
    const json = JSON.parse(readFileSync(path.join(folder, 'expected', name), 'utf8')) as Record<string, JsonValue>;
    const expected: ExpectedWhois = {
      domain_name: asList(json.domain_name)?.map((item) => item?.toLowerCase() ?? null),
      registrar: asList(json.registrar),
      creation_date: dates(json.creation_date),
      expiration_date: dates(json.expiration_date),
      updated_date: dates(json.updated_date),
    };
    if (json.name_servers !== undefined) expected.name_servers = (asList(json.name_servers) ?? []).filter(isString);
    if (json.status !== undefined) expected.status = (asList(json.status) ?? []).filter(isString);
    if (json.dnssec !== undefined) expected.dnssec = asList(json.dnssec);
    return {
      corpus: 'richardpenman-whois',
      file: `richardpenman-whois/whois/${name}`,
      raw: readFileSync(path.join(folder, 'whois', name), 'utf8'),
      query: name,
      expected,
      notFound: false,
    };
  });
}

function isString(value: string | null): value is string {
  return value !== null;
}
