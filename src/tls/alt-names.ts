/**
 * Reads Node's `subjectaltname` string ('DNS:a.example, DNS:b.example, IP Address:192.0.2.1') into
 * its entries. Since Node 17.3.1 a value that contains a comma, quote or other special character is
 * written as a JSON string ('DNS:"evil.example, DNS:x"'), so the string is tokenised rather than split,
 * and a crafted name cannot pass for two.
 */
export function parseSubjectAltNames(text: string | undefined): { type: string; value: string }[] {
  const entries: { type: string; value: string }[] = [];
  if (!text) return entries;
  let position = 0;
  while (position < text.length) {
    const colon = text.indexOf(':', position);
    if (colon === -1) break;
    const type = text.slice(position, colon).trim();
    let value: string;
    let end: number;
    if (text[colon + 1] === '"') {
      // A JSON string: find its closing quote, skipping escaped ones.
      end = colon + 2;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      end += 1;
      try {
        value = JSON.parse(text.slice(colon + 1, end)) as string;
      } catch {
        value = text.slice(colon + 2, end - 1);
      }
    } else {
      end = text.indexOf(', ', colon + 1);
      if (end === -1) end = text.length;
      value = text.slice(colon + 1, end);
    }
    entries.push({ type, value });
    const next = text.indexOf(', ', end);
    position = next === -1 ? text.length : next + 2;
  }
  return entries;
}

/**
 * `alt_names`: DNS names and IP addresses bare (the forms a host name is matched against); any
 * other kind keeps its type as OpenSSL prints it ('email:a@example.com', 'URI:https://...').
 */
export function presentAltNames(text: string | undefined): string[] {
  return parseSubjectAltNames(text).map(({ type, value }) =>
    type === 'DNS' || type === 'IP Address' ? value : `${type}:${value}`,
  );
}
