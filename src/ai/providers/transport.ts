import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { PacedRead } from '../../net/pacedRead';

/**
 * Provider connections stay open between calls (as fetch's pool kept them): a stream pays its TCP
 * and TLS handshakes once per socket, not once per answer.
 */
const AGENTS = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/** Receives the answer's text chunk by chunk; 'stop' ends the read early (a protocol's end marker). */
export type TextHandler = (text: string) => 'stop' | void;

const ignore = (): void => undefined;

/**
 * One JSON POST to a provider over node:http(s), read as Node stream events: no web streams, no
 * TextDecoder step and no async iterator per chunk, which made reading the provider a sixth of a
 * streaming node's CPU under fetch. The caller closes it when done (`close`), which also cuts the
 * connection when the answer was not read to its end.
 */
export class Exchange {
  /** The answer, once its status line and headers are in; rejects when the connection fails before that. */
  readonly response: Promise<IncomingMessage>;
  /** Set once closed by `close(true)` (a timeout, the caller's abort): failures after that are ours, not the provider's. */
  cut = false;
  private request: ClientRequest | undefined;
  private answer: IncomingMessage | undefined;
  private paced: PacedRead | undefined;

  constructor(url: string, headers: Record<string, string>, body: string) {
    this.response = new Promise<IncomingMessage>((resolve, reject) => {
      const target = new URL(url);
      const agent = target.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'];
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } });
      this.request = request;
      // Errors after the answer began reach its reader through the response; this one only settles the wait for headers.
      request.on('error', reject);
      request.once('response', (answer) => {
        this.answer = answer;
        answer.on('error', ignore);
        resolve(answer);
      });
      request.end(body);
    });
  }

  /**
   * Feeds the answer's text to `onText` until it ends or `onText` says 'stop'; `onChunk` hears of
   * every chunk (the idle timer). Rejects when the connection is lost before the end, or with what
   * `onText` throws. `paced` (a streamed answer) reads the socket once a window while this process
   * streams many answers (src/net/pacedRead.ts); a short answer is read as it comes.
   */
  read(answer: IncomingMessage, onText: TextHandler, onChunk: () => void, paced = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const pacedRead = paced ? new PacedRead(answer.socket) : undefined;
      this.paced = pacedRead;
      const settle = (error?: unknown): void => {
        pacedRead?.release();
        answer.off('data', onData);
        answer.off('end', onEnd);
        answer.off('error', settle);
        answer.off('close', onClose);
        if (error === undefined) resolve();
        else reject(error);
      };
      const onData = (text: string): void => {
        onChunk();
        let said: 'stop' | void;
        try {
          said = onText(text);
        } catch (error) {
          settle(error);
          return;
        }
        if (said === 'stop') settle();
        else pacedRead?.afterRead();
      };
      const onEnd = (): void => settle();
      const onClose = (): void => {
        if (!answer.complete) settle(new Error('the connection closed before the answer ended'));
      };
      // Lost between the headers and this read: say so now, as 'close' will not come again.
      if (answer.destroyed && !answer.complete) {
        settle(answer.errored ?? new Error('the connection closed before the answer ended'));
        return;
      }
      answer.setEncoding('utf8');
      answer.on('data', onData);
      answer.once('end', onEnd);
      answer.once('error', settle);
      answer.once('close', onClose);
    });
  }

  /**
   * Ends the exchange. `cut` (a timeout, an abort, a failed read) destroys the connection at once.
   * Otherwise the connection goes back to the pool if the answer ended; an answer left after its end
   * marker (the provider's final chunk usually follows in the same read) gets until the next turn of
   * the event loop to finish, else its connection is destroyed rather than reused mid-answer.
   */
  close(cut: boolean): void {
    if (cut) this.cut = true;
    // A socket left waiting for the tick reads again before it is destroyed or goes back to the pool.
    this.paced?.release();
    const { request, answer } = this;
    if (!request) return;
    if (!answer) {
      request.destroy();
      return;
    }
    if (answer.complete) return;
    if (cut) {
      answer.destroy();
      return;
    }
    answer.resume();
    setImmediate(() => {
      if (!answer.complete) answer.destroy();
    });
  }
}
