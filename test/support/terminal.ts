import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI, ROOT } from './processes';
import { eventually } from './eventually';

/**
 * `parley ...args` with a real terminal as its stdin and stdout: util-linux `script` runs it on a
 * pseudo-terminal and relays what is typed into ours. Whatever the terminal shows, echo included,
 * comes back in `screen`.
 */
export class TerminalCli {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  screen = '';

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    const command = [process.execPath, CLI, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
    // -q: no banner, -f: flush at once, -e: exit with the command's code, -c: the command; no typescript file.
    this.#child = spawn('script', ['-qfec', command, '/dev/null'], { env, cwd: ROOT });
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.screen += chunk));
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.screen += chunk));
    this.exited = new Promise((resolve) => this.#child.on('close', (code) => resolve(code)));
  }

  /** Waits until the terminal shows `text` after `from` characters of screen, and returns where it ends. */
  async waitFor(text: string, from = 0): Promise<number> {
    // Generous: starting `script` and node on a loaded machine takes seconds.
    const screen = await eventually(() => this.screen, (shown) => shown.indexOf(text, from) >= 0, 30_000);
    const at = screen.indexOf(text, from);
    if (at < 0) throw new Error(`the terminal never showed ${JSON.stringify(text)}; it shows ${JSON.stringify(screen)}`);
    return at + text.length;
  }

  /** Keys as typed: Enter is `\r`. */
  type(keys: string): void {
    this.#child.stdin.write(keys);
  }

  kill(): void {
    this.#child.kill('SIGKILL');
  }
}
