import { z } from 'zod';
import { validationFailed } from '../errors';
import { PASSWORD_STDIN, type PasswordFlag } from './command';
import { promptHidden, readFirstLine } from './terminal';

/** A password the command line sets (user create, the workspace owner's, user password). */
export const newPassword = () => z.string().min(8);

/**
 * Fills the password flag from where the operator gave it: the flag itself, the first line of stdin
 * (`--password-stdin`, so it stays out of the shell history and the process list), or, when neither is
 * given and stdin is a terminal, a prompt without echo, asked twice. Anything else is left for the
 * schema to report as missing.
 */
export async function withPassword(spec: PasswordFlag, values: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { [PASSWORD_STDIN]: fromStdin, ...flags } = values;
  const given = flags[spec.flag] !== undefined;
  if (fromStdin && given) {
    throw validationFailed({ [spec.flag]: [`Give the password with --${spec.flag} or with --${PASSWORD_STDIN}, not both.`] });
  }
  if (fromStdin) return { ...flags, [spec.flag]: await readFirstLine(process.stdin) };
  if (!given && (spec.wanted?.(flags) ?? true) && process.stdin.isTTY) return { ...flags, [spec.flag]: await promptTwice(spec.flag) };
  return flags;
}

async function promptTwice(flag: string): Promise<string> {
  const first = await promptHidden('Password: ', process.stdin, process.stderr);
  const second = await promptHidden('Password again: ', process.stdin, process.stderr);
  if (first !== second) throw validationFailed({ [flag]: ['The two passwords typed do not match.'] });
  return first;
}
