const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The text of a WHOIS answer. Port 43 has no way to say its character set: most servers now send
 * UTF-8, older ones ISO-8859-1 (DENIC, .at, .se and RIPE once did). Bytes that are valid UTF-8 are
 * read as UTF-8 (a byte sequence that happens to be valid UTF-8 and is really Latin-1 is vanishingly
 * rare); anything else is read as Latin-1, which maps every byte to a character and so never fails.
 */
export function decodeWhoisText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  }
}
