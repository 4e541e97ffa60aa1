import { connect, type Socket } from 'node:net';
import { createTransport } from 'nodemailer';

// Sends one follow-up mail over SMTP (nodemailer), within a hard deadline.

/** The longest one send may take, connection to the server's answer to DATA; past it the socket is destroyed. */
export const SEND_DEADLINE_MS = 20_000;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<...@...>`: the same on every attempt of one mail, so a receiver can tell a repeat for what it is. */
  messageId: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/** Whether the SMTP server refused the mail for good (5xx): retrying cannot help. */
export const permanentFailure = (error: unknown): boolean => {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500;
};

/**
 * SMTP through nodemailer, one connection per mail (a follow-up is rare). The socket is this module's
 * own (`getSocket`), so the deadline can destroy it: a send never outlives SEND_DEADLINE_MS, which the
 * sender's lease relies on (a mail whose sender died is sent again only after the lease, when the dead
 * sender's dialogue has certainly ended).
 */
export class SmtpMailer implements Mailer {
  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    let socket: Socket | undefined;
    const transport = createTransport({
      url: this.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: SEND_DEADLINE_MS,
      getSocket: (options, callback) => {
        const opened = connect({ host: options.host ?? 'localhost', port: Number(options.port ?? (options.secure ? 465 : 587)) });
        socket = opened;
        // Only the first outcome is the answer; later errors reach nodemailer through the socket itself.
        const connected = () => {
          opened.off('error', failed);
          callback(null, { connection: opened });
        };
        const failed = (error: Error) => {
          opened.off('connect', connected);
          callback(error);
        };
        opened.once('connect', connected).once('error', failed);
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        socket?.destroy();
        reject(new Error(`the SMTP server did not take the mail within ${SEND_DEADLINE_MS} ms`));
      }, SEND_DEADLINE_MS);
    });
    try {
      await Promise.race([transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, messageId: mail.messageId }), deadline]);
    } finally {
      clearTimeout(timer);
      transport.close();
    }
  }
}
