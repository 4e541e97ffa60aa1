import type { z } from 'zod';
import type { AppContext } from '../context';

/** One flag of a command: its parseArgs type and the line `parley <command> --help` shows for it. */
export interface Flag {
  type: 'string' | 'boolean';
  help: string;
}

/**
 * The flag that carries a new password. The command line adds `--password-stdin` beside it and, on a
 * terminal, prompts for it when neither is given (src/cli/passwordInput.ts).
 */
export interface PasswordFlag {
  flag: string;
  /** Whether these flags call for a password at all (a workspace needs its owner's only with an owner). */
  wanted?: (flags: Record<string, unknown>) => boolean;
}

/** One `parley` command: its flags (as parseArgs options), their zod schema, and what it prints. */
export interface Command<S extends z.ZodType = z.ZodType> {
  /** The synopsis: the command's words and flags, optional ones in brackets. */
  usage: string;
  /** One line on what it does, for `--help`. */
  summary: string;
  flags: Record<string, Flag>;
  password?: PasswordFlag;
  /** False for the one command (migrate) that must see the database as it is: others migrate an embedded one first. */
  migrateFirst?: boolean;
  schema: S;
  run(ctx: AppContext, input: z.output<S>): Promise<Record<string, unknown>>;
}

export const defineCommand = <S extends z.ZodType>(command: Command<S>): Command<S> => command;

/** `--company ID`, the flag of every command that works in one workspace. */
export const COMPANY_FLAG: Flag = { type: 'string', help: "the workspace's id" };

/** The flag every password-taking command accepts beside its password flag. */
export const PASSWORD_STDIN = 'password-stdin';
