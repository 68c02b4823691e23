import { hostname } from 'node:os';
import type { Transporter } from 'nodemailer';
import type { PostOutcome } from './webhook-sender.ts';

export interface EmailSender {
  send(to: string, subject: string, text: string): Promise<PostOutcome>;
  close(): void;
}

/** SMTP_URL through nodemailer (STARTTLS when the server offers it; smtps:// is TLS from the start). */
export function createEmailSender(smtpUrl: string, from: string): EmailSender {
  // nodemailer is 650 KB of source, the largest package loaded: loaded with the first mail (issue 35).
  let transport: Promise<Transporter> | undefined;
  const transporter = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl)));
  const sender = from || `netinfo@${hostname()}`;
  return {
    async send(to, subject, text) {
      try {
        const info = await (await transporter()).sendMail({ from: sender, to, subject, text });
        const status = Number(/^(\d{3})/.exec(String(info.response))?.[1] ?? 250);
        return { status, error: null };
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        return { status: code ?? null, error: (error as Error).message };
      }
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}
