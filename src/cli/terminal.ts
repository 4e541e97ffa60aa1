/** Thrown when the person at the terminal gives up on a prompt (Ctrl-C, or Ctrl-D on an empty line). */
export class PromptCancelled extends Error {
  constructor() {
    super('Cancelled.');
  }
}

/**
 * The first line of `input` without its line ending (`\n` or `\r\n`); the text up to the end when no line
 * ending comes. Stops reading at the first line, so a writer that keeps the pipe open does not hang us.
 */
export function readFirstLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = () => {
      input.off('data', onData).off('end', done).off('error', reject);
      input.pause();
      resolve(text.split('\n', 1)[0]!.replace(/\r$/, ''));
    };
    const onData = (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) done();
    };
    input.setEncoding('utf8');
    input.on('data', onData).once('end', done).once('error', reject);
  });
}

/**
 * Asks on `output` and reads one line from the terminal `input` with echo off (raw mode), so the
 * password never shows on screen. Backspace deletes; other control keys and escape sequences
 * (arrows) are ignored rather than taken into the password.
 */
export function promptHidden(question: string, input: NodeJS.ReadStream, output: NodeJS.WritableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let typed: string[] = [];
    const finish = (cancelled: boolean) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      if (cancelled) reject(new PromptCancelled());
      else resolve(typed.join(''));
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(false);
        if (char === '\u0003' || (char === '\u0004' && typed.length === 0)) return finish(true);
        if (char === '\u0004') return finish(false);
        if (char === '\u001b') return; // an escape sequence arrives whole in one chunk: drop the rest of it
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed.push(char);
      }
    };
    output.write(question);
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
  });
}
