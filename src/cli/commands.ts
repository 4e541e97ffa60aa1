import type { Command } from './command';
import { migrateCommand } from './migrate';
import { workspaceBrand, workspaceCreate, workspaceList, workspaceSuspend, workspaceUnsuspend } from './workspace';
import { userCreate, userList, userPassword, userRevokeSessions, userSuspend } from './user';
import { chatbotCreate, chatbotList } from './chatbot';
import { chatbotShow, chatbotUpdate } from './chatbotSettings';
import { tokenCreate, tokenRevoke } from './token';
import { cannedCreate, tagCreate } from './catalogue';
import { integrationConnect, integrationDisconnect } from './integration';
import { seedDemo } from './seed';
import { webhookCreate, webhookDelete, webhookList } from './webhook';
import { routingShow, routingUpdate, userUpdate } from './routing';

/** Every `parley` command by its words, in the order `parley --help` lists them. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  migrate: migrateCommand,
  'workspace create': workspaceCreate,
  'workspace list': workspaceList,
  'workspace suspend': workspaceSuspend,
  'workspace unsuspend': workspaceUnsuspend,
  'workspace brand': workspaceBrand,
  'user create': userCreate,
  'user list': userList,
  'user password': userPassword,
  'user revoke-sessions': userRevokeSessions,
  'user suspend': userSuspend,
  'user update': userUpdate,
  'chatbot create': chatbotCreate,
  'chatbot list': chatbotList,
  'chatbot show': chatbotShow,
  'chatbot update': chatbotUpdate,
  'token create': tokenCreate,
  'token revoke': tokenRevoke,
  'tag create': tagCreate,
  'canned create': cannedCreate,
  'integration connect': integrationConnect,
  'integration disconnect': integrationDisconnect,
  'webhook create': webhookCreate,
  'webhook list': webhookList,
  'webhook delete': webhookDelete,
  'routing show': routingShow,
  'routing update': routingUpdate,
  'seed demo': seedDemo,
};

export interface Invocation {
  name: string;
  command: Command;
  /** The arguments after the command's words: its flags. */
  args: string[];
}

/** The command named by the first one or two words of `argv`, if any. */
export function findCommand(argv: string[]): Invocation | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    // Own keys only: `parley constructor` must not find Object.prototype's.
    if (argv.length >= words && Object.hasOwn(COMMANDS, name)) return { name, command: COMMANDS[name]!, args: argv.slice(words) };
  }
  return undefined;
}
