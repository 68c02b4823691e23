/**
 * The tag=value lists of DKIM key records (RFC 6376 §3.2), and of DMARC, MTA-STS and TLS-RPT
 * records, which borrow the syntax: `tag=value` separated by `;`, white space around either side of
 * both allowed, a trailing `;` allowed. Pure: the text in, the tags and what is wrong out.
 */
export type TagList = {
  /** Tag name (case kept; callers compare as their RFC says) -> value, white space trimmed. */
  tags: Map<string, string>;
  /** Tag names in the order written (the first one matters: `v=` must come first). */
  order: string[];
  /** Plain sentences, one per syntax error. */
  errors: string[];
};

const TAG_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
// RFC 6376 tval: printable ASCII except ';' (and '=' is allowed inside values, as base64 pads use it).
const TAG_VALUE = /^[\x21-\x3a\x3c-\x7e]*(?:[ \t\r\n]+[\x21-\x3a\x3c-\x7e]+)*$/;

export function parseTagList(text: string): TagList {
  const tags = new Map<string, string>();
  const order: string[] = [];
  const errors: string[] = [];
  const specs = text.split(';');
  specs.forEach((spec, index) => {
    if (spec.trim() === '') {
      // Only the last one may be empty: "a=1;" is allowed, "a=1;;b=2" is not.
      if (index !== specs.length - 1) errors.push(`empty tag between two ";" (position ${index + 1})`);
      return;
    }
    const equals = spec.indexOf('=');
    if (equals === -1) {
      errors.push(`"${spec.trim()}" is not tag=value`);
      return;
    }
    const name = spec.slice(0, equals).trim();
    const value = spec.slice(equals + 1).trim();
    if (!TAG_NAME.test(name)) {
      errors.push(`"${name}" is not a valid tag name`);
      return;
    }
    if (!TAG_VALUE.test(value)) {
      errors.push(`the value of ${name}= has characters a tag value cannot have`);
      return;
    }
    if (tags.has(name)) {
      errors.push(`tag ${name}= appears more than once`);
      return;
    }
    tags.set(name, value);
    order.push(name);
  });
  return { tags, order, errors };
}
