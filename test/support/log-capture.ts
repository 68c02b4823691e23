import { Writable } from 'node:stream';

/** A log destination for tests: the lines written, as text and parsed from pino's JSON. */
export function captureLog() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    stream,
    text: () => chunks.join(''),
    lines: (): Record<string, unknown>[] =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)),
  };
}
