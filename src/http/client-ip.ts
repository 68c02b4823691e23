import type { IncomingHttpHeaders } from 'node:http';
import { dottedQuadValue, normaliseIp } from '../net/ip-address.ts';
import type { TrustProxy } from './trust-proxy.ts';

/**
 * In this order; the first one present decides. A proxy should set or overwrite the first of these
 * it supports, otherwise a client could supply it.
 */
const CHAIN_HEADERS = ['x-forwarded-for', 'forwarded'] as const;
const SINGLE_HEADERS = ['x-real-ip', 'cf-connecting-ip'] as const;

/**
 * The socket peer is the client unless it is a trusted proxy. Then the forwarding chain is walked
 * from the right (the entry our own proxy appended) past every trusted address, and the first
 * untrusted address is the client; if every entry is trusted, the left-most one is. A malformed
 * header or entry (garbage, `unknown`, obfuscated Forwarded identifiers) means we cannot know
 * better than the peer, so the peer is returned. IPv4-mapped IPv6 peers are reported as IPv4.
 */
export function resolveClientIp(peer: string, headers: IncomingHttpHeaders, trust: TrustProxy): string {
  const peerIp = normalisePeer(peer);
  if (!trust.enabled || !isTrustedPeer(peerIp, trust)) return peerIp;

  for (const name of CHAIN_HEADERS) {
    const value = headerText(headers[name]);
    if (value === undefined) continue;
    // One address, the usual case behind a single proxy, is its own answer (trusted or not).
    if (name === 'x-forwarded-for' && !value.includes(',')) return parseAddressWithPort(value) ?? peerIp;
    const chain = name === 'forwarded' ? parseForwarded(value) : value.split(',').map(parseAddressWithPort);
    return walkChain(chain, trust) ?? peerIp;
  }
  for (const name of SINGLE_HEADERS) {
    const value = headerText(headers[name]);
    if (value === undefined) continue;
    return normaliseIp(value.trim()) ?? peerIp;
  }
  return peerIp;
}

/**
 * Behind a proxy nearly every request comes from the same few peers, so the last answer is kept:
 * parsing the peer and matching it against every trusted range on each request is wasted work.
 */
let lastPeer = '';
let lastTrust: TrustProxy | undefined;
let lastPeerTrusted = false;
function isTrustedPeer(peerIp: string, trust: TrustProxy): boolean {
  if (peerIp !== lastPeer || trust !== lastTrust) {
    lastPeer = peerIp;
    lastTrust = trust;
    lastPeerTrusted = trust.isTrusted(peerIp);
  }
  return lastPeerTrusted;
}

/** The socket's own address text is already well-formed; skip full parsing on the common shapes. */
function normalisePeer(peer: string): string {
  if (dottedQuadValue(peer) >= 0) return peer;
  if (peer.startsWith('::ffff:') && dottedQuadValue(peer.slice(7)) >= 0) return peer.slice(7);
  return normaliseIp(peer) ?? peer;
}

function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : value;
}

function walkChain(chain: (string | null)[], trust: TrustProxy): string | null {
  if (chain.length === 0) return null;
  for (let index = chain.length - 1; index >= 0; index--) {
    const entry = chain[index];
    if (entry === null || entry === undefined) return null;
    if (!trust.isTrusted(entry)) return entry;
  }
  return chain[0] ?? null;
}

/** `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:80`; else null. */
function parseAddressWithPort(raw: string): string | null {
  const value = raw.trim();
  // The usual entry: a plain dotted quad, accepted only in its one normal spelling.
  if (dottedQuadValue(value) >= 0) return value;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return normaliseIp(bracketed[1] ?? '');
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(value);
  if (ipv4WithPort) return normaliseIp(ipv4WithPort[1] ?? '');
  return normaliseIp(value);
}

/** RFC 7239. */
function parseForwarded(value: string): (string | null)[] {
  return value.split(',').map((element) => {
    for (const pair of element.split(';')) {
      const separator = pair.indexOf('=');
      if (separator < 0) continue;
      if (pair.slice(0, separator).trim().toLowerCase() !== 'for') continue;
      const node = pair
        .slice(separator + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      return parseAddressWithPort(node);
    }
    return null;
  });
}
