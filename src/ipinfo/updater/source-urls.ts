/**
 * The URLs to try, in order. A `{month}` template (DB-IP publishes one file a month, some days
 * into it) gives this UTC month and, when that is not published yet, the month before.
 */
export function candidateUrls(template: string, now: Date, licenseKey: string | null): string[] {
  const fill = (month: string) =>
    template.replaceAll('{month}', month).replaceAll('{license_key}', encodeURIComponent(licenseKey ?? ''));
  if (!template.includes('{month}')) return [fill('')];
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const label = (y: number, m: number) => `${y}-${String(m + 1).padStart(2, '0')}`;
  return [fill(label(year, month)), fill(month === 0 ? label(year - 1, 11) : label(year, month - 1))];
}

/** MaxMind's download API serves the archive's SHA-256 at the same URL with `suffix=tar.gz.sha256`. */
export function checksumUrlFor(url: string): string | null {
  return /[?&]suffix=tar\.gz(&|$)/.test(url) ? url.replace(/([?&]suffix=)tar\.gz(?=&|$)/, '$1tar.gz.sha256') : null;
}
