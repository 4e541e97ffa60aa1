#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig, loadDotEnv } from '../config/env';
import { AppError } from './errors';
import { closeContext, openContext } from './context';
import { migrate } from './db/migrate';
import { createLogger } from './logger';
import { parse } from './http/validate';
import type { Command } from './cli/command';
import { workspaceBrand, workspaceCreate, workspaceSuspend, workspaceUnsuspend } from './cli/workspace';
import { userCreate, userSuspend } from './cli/user';
import { chatbotCreate } from './cli/chatbot';
import { tokenCreate, tokenRevoke } from './cli/token';
import { cannedCreate, tagCreate } from './cli/catalogue';
import { seedDemo } from './cli/seed';
import { integrationConnect, integrationDisconnect } from './cli/integration';

/**
 * `parley`: the operator command line (README "Operator command line"). Each command prints one JSON object on stdout;
 * logs go to stderr. Exit 0 on success, 1 with `{"message": ...}` on failure.
 */
const COMMANDS: Record<string, Command> = {
  'workspace create': workspaceCreate,
  'workspace suspend': workspaceSuspend,
  'workspace unsuspend': workspaceUnsuspend,
  'workspace brand': workspaceBrand,
  'user create': userCreate,
  'user suspend': userSuspend,
  'chatbot create': chatbotCreate,
  'token create': tokenCreate,
  'token revoke': tokenRevoke,
  'tag create': tagCreate,
  'canned create': cannedCreate,
  'integration connect': integrationConnect,
  'integration disconnect': integrationDisconnect,
  'seed demo': seedDemo,
};

async function main(argv: string[]): Promise<Record<string, unknown>> {
  loadDotEnv();
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const [group, verb, ...rest] = argv;

  if (group === 'migrate') {
    const ctx = await openContext(config, logger, { redis: false });
    try {
      return { migrated: await migrate(ctx.db.sequelize, logger) };
    } finally {
      await closeContext(ctx);
    }
  }

  const command = COMMANDS[`${group} ${verb}`];
  if (!command) throw new Error(usage());
  const { values } = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false });
  const input = parse(command.schema, values);
  const ctx = await openContext(config, logger, { redis: false, migrateEmbedded: true });
  try {
    return await command.run(ctx, input);
  } finally {
    await closeContext(ctx);
  }
}

function usage(): string {
  return ['Usage: parley <command>', '  migrate', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');
}

/** Exits only once stdout has taken the JSON, so a piped reader always gets the whole line. */
function finish(body: Record<string, unknown>, code: number): void {
  process.stdout.write(`${JSON.stringify(body)}\n`, () => process.exit(code));
}

main(process.argv.slice(2)).then(
  (result) => finish(result, 0),
  (error: unknown) => {
    if (error instanceof AppError) finish({ message: error.message, ...(error.details.errors ? { errors: error.details.errors } : {}) }, 1);
    else finish({ message: error instanceof Error ? error.message : String(error) }, 1);
  },
);
