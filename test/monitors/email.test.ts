import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { buildAccountsApp, PASSWORD, sessionClient } from '../support/accounts.ts';

test('a monitor e-mails the change through SMTP_URL, in plain text, and the attempt is kept', async () => {
  const mails: { from: string; to: string[]; text: string }[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          text: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  const site = createServer((_request, response) => {
    response.writeHead(503);
    response.end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { app, close } = await buildAccountsApp({
    ALLOW_PRIVATE_TARGETS: '127.0.0.1/32',
    MONITOR_MIN_INTERVAL_SECONDS: 'free=1,pro=1',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    SMTP_FROM: 'alerts@netinfo.test',
  });
  try {
    const session = sessionClient(app);
    await session.signup('mail@example.com', PASSWORD);
    const headers = { cookie: session.state.cookie, 'x-csrf-token': session.state.csrf };
    const target = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/monitors',
      headers,
      payload: { name: 'shop', type: 'http', target, interval_seconds: 60, notify: { emails: ['Ops@Example.com'] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json().notify.emails, ['ops@example.com']);
    for (let i = 0; i < 100 && mails.length === 0; i++) await sleep(100);
    const [mail] = mails;
    assert.ok(mail, 'an e-mail arrived');
    assert.equal(mail.from, 'alerts@netinfo.test');
    assert.deepEqual(mail.to, ['ops@example.com']);
    assert.match(mail.text, /Subject: \[netinfo\] DOWN: shop \(http http:\/\/127\.0\.0\.1:\d+\/\)/);
    assert.match(mail.text, /State: {4}down/);
    assert.match(mail.text, /Cause: {4}\S+: status 503/);
    let delivery: { state: string; url: string; attempts: { status: number }[] } | undefined;
    for (let i = 0; i < 50 && delivery?.state !== 'delivered'; i++) {
      await sleep(100);
      [delivery] = (
        await app.inject({ url: `/api/v1/monitors/${created.json().id}/deliveries`, headers })
      ).json().deliveries;
    }
    assert.equal(delivery?.state, 'delivered');
    assert.equal(delivery?.url, 'mailto:ops@example.com');
    assert.equal(delivery?.attempts[0]?.status, 250);
  } finally {
    await close();
    site.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  }
});
