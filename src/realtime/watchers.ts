import type { Logger } from 'pino';
import { Op } from 'sequelize';
import type { Membership } from '../actors/cluster/membership';
import { Conversation, User } from '../models';
import { presentConversationWatchers, type Watcher } from '../presenters/realtimeEvents';
import { conversationChannels, parseChannel } from './channels';
import type { RealtimeEmitter } from './emitter';
import type { RealtimeServer } from './events';
import type { WatcherEntry, WatcherStore } from './watcherStore';

/** Who has a conversation open: agent sockets subscribed to its `private-conversation.<uuid>`, on any live node. */
export interface Watchers {
  /** Each agent once (however many tabs), by name. */
  of(conversationId: string): Promise<Watcher[]>;
  /** Stops following this node's sockets: a stopping node's entries are dropped by the others once it has left. */
  close(): void;
}

export interface WatcherCluster {
  /** This node's member id: its entries carry it, and die with it. */
  member: string;
  membership: Pick<Membership, 'isLive' | 'live' | 'on' | 'off'>;
}

/**
 * Follows the rooms of this node's agent sockets (a subscribe joins one; an unsubscribe or a
 * disconnect leaves it) and announces `conversation.watchers` when an agent arrives or leaves.
 * Entries of a node that membership removes are ignored at once and dropped (and announced) by
 * whichever surviving node gets to them first.
 */
export function trackWatchers(io: RealtimeServer, store: WatcherStore, cluster: WatcherCluster, emitter: RealtimeEmitter, logger: Logger): Watchers {
  const { member, membership } = cluster;
  const live = (entries: WatcherEntry[]) => entries.filter((entry) => membership.isLive(entry.node));
  let closed = false;

  const announce = async (conversationId: string) => {
    const conversation = await Conversation.findOne({ where: { publicId: conversationId }, attributes: ['companyId', 'seq'] });
    if (!conversation) return;
    const data = presentConversationWatchers(conversationId, await named(live(await store.entries(conversationId))));
    // Presence is not a durable event: it carries the conversation's current `seq` without advancing it.
    for (const channel of conversationChannels({ publicId: conversationId, companyId: conversation.companyId })) {
      emitter.emit(channel, 'conversation.watchers', data, Number(conversation.seq));
    }
  };

  // An agent's arrival or departure is news; their second tab coming or going is not.
  const joined = async (conversationId: string, entry: WatcherEntry) => {
    const entries = live(await store.add(conversationId, entry));
    if (!entries.some((other) => other.userId === entry.userId && other.socketId !== entry.socketId)) await announce(conversationId);
  };
  const left = async (conversationId: string, entry: WatcherEntry) => {
    const { removed, entries } = await store.remove(conversationId, entry);
    if (removed && !live(entries).some((other) => other.userId === entry.userId)) await announce(conversationId);
  };

  // One socket's changes apply in the order they happened (a quick subscribe-unsubscribe must not leave an entry).
  const queues = new Map<string, Promise<void>>();
  const enqueue = (socketId: string, work: () => Promise<void>) => {
    const next = (queues.get(socketId) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => logger.warn({ err: error }, 'conversation watchers could not be updated'));
    queues.set(socketId, next);
    void next.then(() => queues.get(socketId) === next && queues.delete(socketId));
  };

  const watcherEntry = (room: string, socketId: string) => {
    const channel = parseChannel(room);
    const identity = io.of('/').sockets.get(socketId)?.data;
    if (closed || channel?.kind !== 'conversation' || identity?.kind !== 'agent') return undefined;
    return { conversationId: channel.conversationId, entry: { node: member, socketId, userId: identity.userId } };
  };
  const onJoin = (room: string, socketId: string) => {
    const watched = watcherEntry(room, socketId);
    if (watched) enqueue(socketId, () => joined(watched.conversationId, watched.entry));
  };
  // A disconnecting socket leaves its rooms while it is still in the namespace, so its identity is still there.
  const onLeave = (room: string, socketId: string) => {
    const watched = watcherEntry(room, socketId);
    if (watched) enqueue(socketId, () => left(watched.conversationId, watched.entry));
  };

  // A node the others removed (its Redis was out of reach too long) has had its entries dropped: once back, it writes them again.
  const restoreOwnEntries = () => {
    for (const socket of io.of('/').sockets.values()) for (const room of socket.rooms) onJoin(room, socket.id);
  };

  let known = [...membership.live()];
  const onMembershipChange = () => {
    const departed = known.filter((node) => !membership.isLive(node));
    if (!known.includes(member) && membership.isLive(member)) restoreOwnEntries();
    known = [...membership.live()];
    for (const node of departed) {
      store
        .dropNode(node)
        .then((conversations) => Promise.all(conversations.map(announce)))
        .catch((error: unknown) => logger.warn({ err: error, node }, 'a departed node\'s watchers could not be dropped'));
    }
  };
  const onMembershipLost = () => {
    known = [];
  };

  const adapter = io.of('/').adapter;
  adapter.on('join-room', onJoin);
  adapter.on('leave-room', onLeave);
  membership.on('change', onMembershipChange);
  membership.on('lost', onMembershipLost);

  return {
    of: async (conversationId) => named(live(await store.entries(conversationId))),
    close: () => {
      closed = true;
      adapter.off('join-room', onJoin);
      adapter.off('leave-room', onLeave);
      membership.off('change', onMembershipChange);
      membership.off('lost', onMembershipLost);
    },
  };
}

/** The agents behind the entries, each once, by name (a user deleted since is no watcher). */
async function named(entries: WatcherEntry[]): Promise<Watcher[]> {
  const ids = [...new Set(entries.map((entry) => entry.userId))];
  if (!ids.length) return [];
  const users = await User.findAll({ where: { id: { [Op.in]: ids } }, attributes: ['id', 'name'] });
  return users.map((user) => ({ id: user.id, name: user.name })).sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}
