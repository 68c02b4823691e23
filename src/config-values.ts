/**
 * Every setting the service reads is declared once as a ConfigVariable. The configuration
 * table (docs/configuration.md) is generated from the declarations and checked by a test, so none goes undocumented.
 */
export interface ConfigVariable<T> {
  readonly name: string;
  /** As an operator would write it. */
  readonly defaultText: string;
  readonly description: string;
  readonly parse: (raw: string | undefined) => T;
}

/** Each returns the default for an unset or blank value and throws a message an operator can act on. */
export function integerIn(min: number, max: number, fallback: number) {
  return (raw: string | undefined): number => {
    if (raw === undefined || raw.trim() === '') return fallback;
    // Digits only: Number() would also take '0x1F90', '0b101', '+5' and '10.', which no one means.
    const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };
}

/** `free=10,pro=200`: a number per named group (tiers, plans); groups left out keep their default. */
export function numbersByName<K extends string>(defaults: Readonly<Record<K, number>>, min: number, max: number) {
  const names = Object.keys(defaults) as K[];
  return (raw: string | undefined): Readonly<Record<K, number>> => {
    const values: Record<K, number> = { ...defaults };
    for (const part of (raw ?? '').split(',')) {
      const entry = part.trim();
      if (entry === '') continue;
      const match = /^([a-z]+)\s*=\s*(\d{1,9})$/i.exec(entry);
      const name = (match?.[1]?.toLowerCase() ?? '') as K;
      const value = Number(match?.[2]);
      if (!match || !names.includes(name) || value < min || value > max) {
        throw new Error(`"${entry}" is not of the form name=number (names: ${names.join(', ')}; ${min} to ${max})`);
      }
      values[name] = value;
    }
    return Object.freeze(values);
  };
}

export function text(fallback: string) {
  return (raw: string | undefined): string => (raw === undefined || raw.trim() === '' ? fallback : raw.trim());
}

export function boolean(fallback: boolean) {
  return (raw: string | undefined): boolean => {
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(value)) return true;
    if (['false', '0', 'no', 'off'].includes(value)) return false;
    throw new Error(`must be true or false, got "${raw}"`);
  };
}

/** Also in a text quoting a URL. */
export function hideUrlPassword(text: string): string {
  return text.replace(/(\/\/[^/@:]*:)[^/@]*@/, '$1***@');
}

export function httpUrl(fallback: string) {
  return (raw: string | undefined): string => {
    const value = text(fallback)(raw);
    let url: URL;
    // A password in the URL is not quoted back.
    const shown = hideUrlPassword(value);
    try {
      url = new URL(value);
    } catch {
      throw new Error(`must be an http(s) URL, got "${shown}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`must be an http(s) URL, got "${shown}"`);
    return value;
  };
}
