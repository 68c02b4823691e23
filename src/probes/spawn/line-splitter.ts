import { StringDecoder } from 'node:string_decoder';

/**
 * Turns a child process's output chunks into complete lines. Chunk boundaries fall anywhere (in the
 * middle of a line, between `\r` and `\n`, inside a multi-byte UTF-8 character), so the unfinished
 * tail is kept until the next chunk or `end()`.
 */
export interface LineSplitter {
  /** Complete lines found so far, without their terminator (`\n` or `\r\n`). */
  push(chunk: Buffer | string): string[];
  /** The last line when the output did not end with a newline (at most one line). */
  end(): string[];
  /**
   * The unfinished line received so far, left in place. traceroute ends a hop's line only when it
   * starts the next one (it writes `\n 2  ...`), so its reader looks at the unfinished line.
   */
  pending(): string;
}

export function createLineSplitter(): LineSplitter {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  return {
    push(chunk) {
      rest += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      return parts.map(stripCarriageReturn);
    },
    end() {
      rest += decoder.end();
      const last = rest;
      rest = '';
      return last === '' ? [] : [stripCarriageReturn(last)];
    },
    pending() {
      return stripCarriageReturn(rest);
    },
  };
}

function stripCarriageReturn(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
