#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig, loadDotEnv } from '../config/env';
import { closeContext, openContext } from './boot/openContext';
import { AppError } from './errors';
import { createLogger } from './logger';
import { parse } from './http/validate';
import { PASSWORD_STDIN, type Command } from './cli/command';
import { findCommand } from './cli/commands';
import { helpOrVersion, USAGE } from './cli/help';
import { withPassword } from './cli/passwordInput';

/**
 * `parley`: the operator command line (README "Operator command line"). Each command prints one JSON
 * object on stdout; logs go to stderr. Exit 0 on success, 1 with `{"message": ...}` on failure.
 * `--help` and `--version` print text instead, and exit 0.
 */
async function main(argv: string[]): Promise<Record<string, unknown>> {
  const invocation = findCommand(argv);
  if (!invocation) {
    const words = argv.slice(0, 2).filter((word) => !word.startsWith('-'));
    throw new Error(words.length ? `Unknown command "${words.join(' ')}". ${USAGE}` : USAGE);
  }
  const { command, args } = invocation;
  // Flags are checked (and a password read) before the settings load: a mistyped command writes nothing.
  const { values } = parseArgs({ args, options: parseOptions(command), strict: true, allowPositionals: false });
  const input = parse(command.schema, command.password ? await withPassword(command.password, values) : values);

  loadDotEnv();
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const ctx = await openContext(config, logger, { redis: false, migrateEmbedded: command.migrateFirst !== false });
  try {
    return await command.run(ctx, input);
  } finally {
    await closeContext(ctx);
  }
}

function parseOptions(command: Command): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [flag, { type }] of Object.entries(command.flags)) options[flag] = { type };
  if (command.password) options[PASSWORD_STDIN] = { type: 'boolean' };
  return options;
}

/** Exits only once stdout has taken the output, so a piped reader always gets all of it. */
function finish(text: string, code: number): void {
  process.stdout.write(text, () => process.exit(code));
}

const argv = process.argv.slice(2);
const answer = helpOrVersion(argv);
if (answer !== undefined) {
  finish(answer, 0);
} else {
  main(argv).then(
    (result) => finish(`${JSON.stringify(result)}\n`, 0),
    (error: unknown) => {
      const body =
        error instanceof AppError
          ? { message: error.message, ...(error.details.errors ? { errors: error.details.errors } : {}) }
          : { message: error instanceof Error ? error.message : String(error) };
      finish(`${JSON.stringify(body)}\n`, 1);
    },
  );
}
