import { PASSWORD_STDIN, type Command, type Flag } from './command';
import { COMMANDS, findCommand } from './commands';
import { packageVersion } from '../version';

const HELP_FLAGS = ['--help', '-h'];

/**
 * The text `--help` or `--version` asks for, or undefined when the arguments ask for neither (or name
 * no command). Computed from the arguments alone: these answers must not load the settings, which in
 * embedded mode writes DATA_DIR/app.key, nor touch a database.
 */
export function helpOrVersion(argv: string[]): string | undefined {
  if (argv[0] === '--version') return `parley ${packageVersion()}\n`;
  if (!argv.some((arg) => HELP_FLAGS.includes(arg))) return undefined;
  if (HELP_FLAGS.includes(argv[0]!)) return toolHelp();
  const invocation = findCommand(argv);
  if (invocation) return commandHelp(invocation.command);
  const group = Object.keys(COMMANDS).filter((name) => name.split(' ')[0] === argv[0]);
  return group.length > 0 ? listing(`Commands of parley ${argv[0]}:`, group) : undefined;
}

/** How to type a command, for the error an unknown one gets. */
export const USAGE = 'Usage: parley <command> [flags]; `parley --help` lists the commands.';

function toolHelp(): string {
  return [
    'Usage: parley <command> [flags]',
    '',
    "Parley's operator command line. A command prints one JSON object on stdout (logs go to stderr) and",
    'exits 0, or 1 with {"message": ..., "errors"?: {...}}. It uses the server\'s settings (the environment',
    'and ./.env): the database at DATABASE_URL, or the embedded one under DATA_DIR.',
    '',
    listing('Commands:', Object.keys(COMMANDS)).trimEnd(),
    '',
    `Where a command takes a password, --${PASSWORD_STDIN} reads it from the first line of stdin instead, and`,
    'on a terminal, a command given neither asks for it (twice, without echo).',
    '',
    '  parley <command> --help   that command\'s flags',
    '  parley --version          the version',
    '',
  ].join('\n');
}

function listing(title: string, names: string[]): string {
  const entries = names.map((name) => `  parley ${COMMANDS[name]!.usage}\n      ${COMMANDS[name]!.summary}`);
  return [title, ...entries, ''].join('\n');
}

function commandHelp(command: Command): string {
  const flags: Array<[string, Flag]> = Object.entries(command.flags).map(([flag, spec]) => [`--${flag}`, spec]);
  if (command.password) flags.push([`--${PASSWORD_STDIN}`, { type: 'boolean', help: `reads --${command.password.flag} from the first line of stdin` }]);
  flags.push(['--help, -h', { type: 'boolean', help: 'shows this text' }]);
  const width = Math.max(...flags.map(([label]) => label.length));
  return [
    `Usage: parley ${command.usage}`,
    '',
    command.summary,
    '',
    'Flags:',
    ...flags.map(([label, spec]) => `  ${label.padEnd(width)}  ${spec.help}`),
    ...(command.password
      ? ['', `When the password is needed and neither --${command.password.flag} nor --${PASSWORD_STDIN} is given, a terminal asks for it twice, without echo.`]
      : []),
    '',
  ].join('\n');
}
