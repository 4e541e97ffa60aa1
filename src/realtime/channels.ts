import { Conversation } from '../models';

export type Channel =
  | { kind: 'company'; name: string; companyId: number }
  | { kind: 'user'; name: string; userId: number }
  | { kind: 'conversation'; name: string; conversationId: string };

/** Ids as Postgres prints them (serial ints; lower-case uuids), so one channel has exactly one spelling. */
const PATTERN = /^private-(company|user)\.([1-9]\d{0,9})$|^private-conversation\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const MAX_INT = 2_147_483_647;

/** The channel a name denotes, or undefined for anything that is not one of the three private kinds. */
export function parseChannel(name: string): Channel | undefined {
  const match = PATTERN.exec(name);
  if (!match) return undefined;
  if (match[3]) return { kind: 'conversation', name, conversationId: match[3] };
  const id = Number(match[2]);
  if (id > MAX_INT) return undefined;
  return match[1] === 'company' ? { kind: 'company', name, companyId: id } : { kind: 'user', name, userId: id };
}

export const companyChannel = (companyId: number) => `private-company.${companyId}`;
export const userChannel = (userId: number) => `private-user.${userId}`;
export const conversationChannel = (conversationId: string) => `private-conversation.${conversationId}`;

/** Where a conversation's durable events go: its own thread (agents who have it open, and the widget) and its workspace's inbox. */
export const conversationChannels = (conversation: { publicId: string; companyId: number }): string[] => [
  conversationChannel(conversation.publicId),
  companyChannel(conversation.companyId),
];

/** Widget sockets sit in a room of their own, so events meant only for agents (deltas, the visitor's own typing) never reach them. */
export const widgetRoom = (conversationId: string) => `widget:${conversationId}`;

export interface Member {
  userId: number;
  companyId: number;
}

/** Whether this signed-in agent may join the channel: their company, themselves, a conversation of their company. */
export async function mayJoin(member: Member, name: string): Promise<boolean> {
  const channel = parseChannel(name);
  if (!channel) return false;
  if (channel.kind !== 'conversation') return mayJoinWithoutLookup(member, channel);
  const found = await Conversation.findOne({ where: { publicId: channel.conversationId, companyId: member.companyId }, attributes: ['id'] });
  return found !== null;
}

/**
 * The part of `mayJoin` that needs no database: a socket re-checks it on subscribe, so a leaked
 * signature for another tenant's company or user channel is still useless. Conversations rely on the signature.
 */
export function mayJoinWithoutLookup(member: Member, channel: Channel): boolean {
  switch (channel.kind) {
    case 'company':
      return channel.companyId === member.companyId;
    case 'user':
      return channel.userId === member.userId;
    case 'conversation':
      return true;
  }
}
