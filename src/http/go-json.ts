/**
 * JSON as Go's encoding/json writes it, for ifconfig.co's bodies (mpolden/echoip; Go 1.19, Debian's,
 * which test/fixtures/echoip was recorded with). A flat object as json.MarshalIndent(v, "", "  "):
 * no trailing newline, keys in order.
 */
export function goIndentedJson(fields: Record<string, string | number | boolean>): string {
  const members = Object.entries(fields).map(
    ([key, value]) => `  ${goString(key)}: ${typeof value === 'string' ? goString(value) : String(value)}`,
  );
  return `{\n${members.join(',\n')}\n}`;
}

/**
 * Go escapes <, >, &, U+2028, U+2029 and every C0 control but \n, \r and \t as \u00XX. It writes DEL
 * and C1 raw; these are escaped too (the same string to a JSON reader), since `curl host/json`
 * prints the body to a terminal and no escape may reach one (http/control-characters.ts, which
 * does not see a body sent as bytes).
 */
export function goString(text: string): string {
  const escaped = [...text].map((char) => {
    const code = char.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    const plain = (!control || '\n\r\t'.includes(char)) && !'<>&\u2028\u2029'.includes(char);
    return plain ? JSON.stringify(char).slice(1, -1) : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `"${escaped.join('')}"`;
}
