import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addressLiteral,
  MAX_LINE,
  type ReplyRead,
  readReply,
  type StarttlsProtocol,
  starttlsSteps,
} from '../../src/tls/starttls-replies.ts';

type Case = {
  why: string;
  protocol: StarttlsProtocol;
  step?: 'greeting' | 'command';
  input: string;
  expected: ReplyRead;
};

const reply = (status: string, text: string, consumed: number): ReplyRead => ({
  kind: 'reply',
  status,
  text,
  consumed,
});

const cases: Case[] = [
  {
    why: 'SMTP greeting, one line',
    protocol: 'smtp',
    input: '220 mx.example ESMTP\r\n',
    expected: reply('220', '220 mx.example ESMTP', 22),
  },
  {
    why: 'SMTP EHLO answer over several lines ends at the line with a space after the code',
    protocol: 'smtp',
    step: 'command',
    input: '250-mx.example\r\n250-PIPELINING\r\n250-STARTTLS\r\n250 8BITMIME\r\n',
    expected: reply('250', '250-mx.example\n250-PIPELINING\n250-STARTTLS\n250 8BITMIME', 60),
  },
  {
    why: 'an SMTP reply whose last line has not arrived is incomplete, not garbage',
    protocol: 'smtp',
    step: 'command',
    input: '250-mx.example\r\n250-STARTTLS\r\n250 8BIT',
    expected: { kind: 'incomplete' },
  },
  { why: 'a bare code line ends an SMTP reply', protocol: 'smtp', input: '220\r\n', expected: reply('220', '220', 5) },
  {
    why: 'a bare LF is accepted as a line end',
    protocol: 'smtp',
    input: '220 hi\n',
    expected: reply('220', '220 hi', 7),
  },
  {
    why: 'SMTP lines of one reply must share the code',
    protocol: 'smtp',
    input: '250-first\r\n220 second\r\n',
    expected: { kind: 'garbage', line: '220 second' },
  },
  {
    why: 'an HTTP server on the SMTP port is garbage at its first line',
    protocol: 'smtp',
    input: 'HTTP/1.1 400 Bad Request\r\n\r\n',
    expected: { kind: 'garbage', line: 'HTTP/1.1 400 Bad Request' },
  },
  {
    why: 'garbage without a line end is known at once, not after the time limit',
    protocol: 'smtp',
    input: '\u0016\u0003\u0001',
    expected: { kind: 'garbage', line: '\u0016\u0003\u0001' },
  },
  { why: 'a partial code is incomplete', protocol: 'smtp', input: '22', expected: { kind: 'incomplete' } },
  {
    why: 'SMTP refusal of STARTTLS is a reply with its code',
    protocol: 'smtp',
    step: 'command',
    input: '454 4.7.0 TLS not available\r\n',
    expected: reply('454', '454 4.7.0 TLS not available', 29),
  },
  {
    why: 'FTP multi-line replies may carry any lines between the first and the last (RFC 959)',
    protocol: 'ftp',
    input: '220-Welcome\r\n  to the FTP service\r\n220 ready\r\n',
    expected: reply('220', '220-Welcome\n  to the FTP service\n220 ready', 46),
  },
  {
    why: 'FTP AUTH TLS go-ahead',
    protocol: 'ftp',
    step: 'command',
    input: '234 AUTH TLS ok\r\n',
    expected: reply('234', '234 AUTH TLS ok', 17),
  },
  {
    why: 'IMAP greeting: an untagged OK',
    protocol: 'imap',
    input: '* OK [CAPABILITY IMAP4rev1 STARTTLS] ready\r\n',
    expected: reply('OK', '* OK [CAPABILITY IMAP4rev1 STARTTLS] ready', 44),
  },
  {
    why: 'IMAP greeting BYE is a reply (a refusal)',
    protocol: 'imap',
    input: '* BYE busy\r\n',
    expected: reply('BYE', '* BYE busy', 12),
  },
  {
    why: 'IMAP: untagged data before the tagged answer is skipped',
    protocol: 'imap',
    step: 'command',
    input: '* CAPABILITY IMAP4rev1\r\na1 OK Begin TLS negotiation now\r\n',
    expected: reply('OK', 'a1 OK Begin TLS negotiation now', 57),
  },
  {
    why: 'IMAP: a tagged NO is a refusal',
    protocol: 'imap',
    step: 'command',
    input: 'a1 NO STARTTLS disabled\r\n',
    expected: reply('NO', 'a1 NO STARTTLS disabled', 25),
  },
  {
    why: 'IMAP: a line neither untagged nor ours is garbage',
    protocol: 'imap',
    step: 'command',
    input: 'x9 OK other\r\n',
    expected: { kind: 'garbage', line: 'x9 OK other' },
  },
  {
    why: 'IMAP greeting that is not untagged',
    protocol: 'imap',
    input: 'hello\r\n',
    expected: { kind: 'garbage', line: 'hello' },
  },
  { why: 'POP3 greeting', protocol: 'pop3', input: '+OK POP3 ready\r\n', expected: reply('+OK', '+OK POP3 ready', 16) },
  {
    why: 'POP3 refusal',
    protocol: 'pop3',
    step: 'command',
    input: '-ERR no TLS\r\n',
    expected: reply('-ERR', '-ERR no TLS', 13),
  },
  { why: 'POP3 partial +O is incomplete', protocol: 'pop3', input: '+O', expected: { kind: 'incomplete' } },
  {
    why: 'POP3 garbage',
    protocol: 'pop3',
    input: 'SSH-2.0-OpenSSH\r\n',
    expected: { kind: 'garbage', line: 'SSH-2.0-OpenSSH' },
  },
];

test('readReply: one reply of each protocol, from the start of what arrived', () => {
  for (const { why, protocol, step, input, expected } of cases) {
    assert.deepEqual(readReply(protocol, input, step ?? 'greeting'), expected, why);
  }
});

test('readReply: the reply is recognised whatever the chunks it arrived in', () => {
  const text = '250-mx.example\r\n250-STARTTLS\r\n250 8BITMIME\r\n';
  for (let cut = 1; cut < text.length; cut++) {
    const first = readReply('smtp', text.slice(0, cut), 'command');
    assert.equal(first.kind, 'incomplete', `cut at ${cut}`);
  }
  assert.equal(readReply('smtp', text, 'command').kind, 'reply');
});

test('readReply: an endless line is garbage, not a buffer that grows', () => {
  const long = `220-${'x'.repeat(MAX_LINE + 10)}`;
  assert.equal(readReply('smtp', long, 'greeting').kind, 'garbage');
  assert.equal(readReply('smtp', `${long}\r\n`, 'greeting').kind, 'garbage');
  const endless = '250-x\r\n'.repeat(300);
  assert.equal(readReply('smtp', endless, 'command').kind, 'garbage');
});

test('starttlsSteps: exactly the commands sent and the replies awaited', () => {
  const sent = (protocol: StarttlsProtocol) =>
    starttlsSteps(protocol, addressLiteral('192.0.2.1')).map((step) => [step.command, step.expect]);
  assert.deepEqual(sent('smtp'), [
    [null, '220'],
    ['EHLO [192.0.2.1]', '250'],
    ['STARTTLS', '220'],
  ]);
  assert.deepEqual(sent('imap'), [
    [null, 'OK'],
    ['a1 STARTTLS', 'OK'],
  ]);
  assert.deepEqual(sent('pop3'), [
    [null, '+OK'],
    ['STLS', '+OK'],
  ]);
  assert.deepEqual(sent('ftp'), [
    [null, '220'],
    ['AUTH TLS', '234'],
  ]);
  assert.equal(addressLiteral('2001:db8::1'), '[IPv6:2001:db8::1]');
});
