import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLineSplitter } from '../../../src/probes/spawn/line-splitter.ts';

function split(chunks: (string | Buffer)[]): string[] {
  const splitter = createLineSplitter();
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
}

test('keeps the unfinished line until its end arrives', () => {
  const splitter = createLineSplitter();
  assert.deepEqual(splitter.push('64 bytes from 127.0.0.1: icmp'), []);
  assert.deepEqual(splitter.push('_seq=1 ttl=64 time=0.014 ms\nno answer'), [
    '64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.014 ms',
  ]);
  assert.deepEqual(splitter.end(), ['no answer']);
  assert.deepEqual(splitter.end(), []);
});

test('table', () => {
  const cases: [string, (string | Buffer)[], string[]][] = [
    ['empty output', [], []],
    ['one empty chunk', [''], []],
    ['a blank line is a line', ['\n'], ['']],
    ['several lines in one chunk', ['a\nb\nc\n'], ['a', 'b', 'c']],
    ['last line without newline is flushed', ['a\nb'], ['a', 'b']],
    ['CRLF', ['a\r\nb\r\n'], ['a', 'b']],
    ['CR and LF in different chunks', ['a\r', '\nb'], ['a', 'b']],
    ['unterminated line ending in CR', ['a\r'], ['a']],
    ['Buffer chunks', [Buffer.from('a\nb'), Buffer.from('c\n')], ['a', 'bc']],
    // 'µ' is two bytes in UTF-8; the chunk boundary falls between them.
    ['multi-byte character split across Buffers', [Buffer.from([0x31, 0xc2]), Buffer.from([0xb5, 0x0a])], ['1µ']],
  ];
  for (const [name, chunks, expected] of cases) assert.deepEqual(split(chunks), expected, name);
});
