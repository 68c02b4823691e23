/**
 * echoip's bodies as Go's json.MarshalIndent(v, "", "  ") writes them (Go 1.19, Debian's, which the
 * fixtures of issue 30 were recorded with), for flat objects: no trailing newline, keys in order.
 */
export function echoipJson(fields: Record<string, string | number | boolean>): string {
  const members = Object.entries(fields).map(
    ([key, value]) => `  ${goString(key)}: ${typeof value === 'string' ? goString(value) : String(value)}`,
  );
  return `{\n${members.join(',\n')}\n}`;
}

/** Go escapes <, >, &, U+2028, U+2029 and every control character but \n, \r and \t as \u00XX. */
function goString(text: string): string {
  const escaped = [...text].map((char) => {
    const code = char.codePointAt(0) ?? 0;
    const plain = (code >= 0x20 || '\n\r\t'.includes(char)) && !'<>&\u2028\u2029'.includes(char);
    return plain ? JSON.stringify(char).slice(1, -1) : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `"${escaped.join('')}"`;
}
