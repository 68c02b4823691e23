import type { ConfigVariable } from '../config-values.ts';

/** A base URL (http or https, no query or fragment), without its trailing slash; empty: none. */
function baseUrl() {
  return (raw: string | undefined): string | null => {
    const value = raw?.trim() ?? '';
    if (value === '') return null;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`must be a URL such as https://ipv4.example.net, got "${value}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`must be http or https, got "${value}"`);
    if (url.search || url.hash || url.username || url.password) {
      throw new Error(`must be a base URL without credentials, query or fragment, got "${value}"`);
    }
    return url.href.replace(/\/+$/, '');
  };
}

export const webConfigVariables = {
  publicIpv4Url: {
    name: 'PUBLIC_IPV4_URL',
    defaultText: 'empty',
    description:
      "Base URL under which this service is reachable over IPv4 only (a name with an A record and no AAAA). With PUBLIC_IPV6_URL, the home page asks both for the visitor's address and shows IPv4 and IPv6 side by side (docs/deployment.md).",
    parse: baseUrl(),
  },
  publicIpv6Url: {
    name: 'PUBLIC_IPV6_URL',
    defaultText: 'empty',
    description: 'Base URL under which this service is reachable over IPv6 only (a name with an AAAA record and no A).',
    parse: baseUrl(),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
