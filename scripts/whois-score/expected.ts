/**
 * What one corpus sample asserts, translated from its corpus's own format. A field left undefined is
 * not asserted by the sample and does not count. Single-valued fields hold the list of acceptable
 * answers, because some corpora accept several (python-whois lists every creation date it saw;
 * weppos models a registrar as a name and an organisation).
 */
export interface ExpectedWhois {
  domain_name?: (string | null)[];
  registrar?: (string | null)[];
  creation_date?: (string | null)[];
  expiration_date?: (string | null)[];
  updated_date?: (string | null)[];
  name_servers?: string[];
  status?: string[];
  dnssec?: (string | null)[];
  registered?: boolean;
}

export interface CorpusSample {
  corpus: string;
  /** Path relative to the fixtures folder, for reports. */
  file: string;
  raw: string;
  query?: string;
  expected: ExpectedWhois;
  /** The corpus says this reply means "not registered". */
  notFound: boolean;
}

/** The calendar date at the start of an expected datetime such as '2014-05-03 00:00:00+00:00'. */
export function leadingCalendarDate(value: string): string | null {
  return /^\d{4}-\d{2}-\d{2}/.exec(value)?.[0] ?? null;
}
