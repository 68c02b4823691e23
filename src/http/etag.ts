import { createHash } from 'node:crypto';

/**
 * Weak (RFC 9110 section 8.8.1): the same ETag covers the identity, gzip and brotli encodings,
 * which the compression hook makes after the route has answered.
 */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/** Weak comparison (RFC 9110 section 13.1.2). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === opaque);
}
