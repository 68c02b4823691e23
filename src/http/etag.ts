import { createHash } from 'node:crypto';

/**
 * A weak validator for a body: the same ETag covers the identity, gzip and brotli encodings of it
 * (which the compression hook makes after the route has answered), so it is weak (RFC 9110
 * section 8.8.1), and If-None-Match compares weakly anyway.
 */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * Whether an If-None-Match header matches `etag`: `*`, or a list of entity tags of which one is
 * the same by weak comparison (RFC 9110 section 13.1.2), that is ignoring `W/`.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === opaque);
}
