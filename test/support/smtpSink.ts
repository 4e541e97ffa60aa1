import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/** A mail the sink accepted (answered 250 to its DATA), parsed as a mail client would. */
export interface ReceivedMail {
  to: string[];
  messageId: string | undefined;
  subject: string | undefined;
  text: string;
  html: string;
}

interface Held {
  session: SMTPServerSession;
  release: (error?: Error) => void;
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server) for the follow-up tests. It accepts every mail, or,
 * while `holding`, keeps the first DATA unanswered (the client waits for the 250 that never comes):
 * a sender killed then has handed over the whole mail and had no acceptance, the case a retry must not
 * turn into two mails. A held mail whose client went away is dropped, as a mail server drops a
 * transaction it never acknowledged.
 */
export class SmtpSink {
  readonly accepted: ReceivedMail[] = [];
  /** DATA phases that began, held or not. */
  readonly attempts: ReceivedMail[] = [];
  /** Recipients refused for good (550 at RCPT TO), and how often each was tried. */
  readonly refused = new Map<string, number>();
  private held: Held | undefined;
  private holdNext = false;
  private heldWaiters: Array<(mail: ReceivedMail) => void> = [];
  private abandonWaiters: Array<() => void> = [];

  private constructor(private readonly server: SMTPServer, readonly port: number) {}

  static async start(): Promise<SmtpSink> {
    let sink: SmtpSink | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream).then(
          (parsed) => sink!.received(parsed, session, callback),
          (error: Error) => callback(error),
        );
      },
      onRcptTo(address, _session, callback) {
        const tries = sink?.refused.get(address.address);
        if (tries === undefined) return callback();
        sink!.refused.set(address.address, tries + 1);
        callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
      },
      onClose(session) {
        sink?.closed(session);
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    sink = new SmtpSink(server, (server.server.address() as AddressInfo).port);
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Mail to this address is refused for good from now on. */
  refuse(address: string): void {
    this.refused.set(address, 0);
  }

  /** The next DATA is held unanswered; resolves with it once it arrived. */
  holdNextMail(): Promise<ReceivedMail> {
    this.holdNext = true;
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  /** Resolves once the held mail's client has gone without an answer. */
  abandoned(): Promise<void> {
    if (this.held === undefined && !this.holdNext) return Promise.resolve();
    return new Promise((resolve) => this.abandonWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.held?.release(new Error('closing'));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private received(parsed: ParsedMail, session: SMTPServerSession, callback: (error?: Error | null) => void): void {
    const to = (session.envelope.rcptTo ?? []).map((rcpt) => rcpt.address);
    const mail: ReceivedMail = { to, messageId: parsed.messageId, subject: parsed.subject, text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' };
    this.attempts.push(mail);
    if (this.holdNext) {
      this.holdNext = false;
      this.held = { session, release: (error) => callback(error ?? null) };
      this.heldWaiters.splice(0).forEach((resolve) => resolve(mail));
      return;
    }
    this.accepted.push(mail);
    callback();
  }

  private closed(session: SMTPServerSession): void {
    if (this.held?.session.id !== session.id) return;
    this.held = undefined;
    this.abandonWaiters.splice(0).forEach((resolve) => resolve());
  }
}
