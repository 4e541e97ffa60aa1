import type { Logger } from 'pino';
import type { RealtimeServer, RealtimeSocket } from './events';
import type { WatcherCluster } from './watchers';
import type { WatcherEntry, WatcherStore } from './watcherStore';

/** Which agents have the inbox open: an agent socket connected to any live node (docs/routing.md "Available"). */
export interface InboxPresence {
  /** The workspace's agents with at least one agent socket on a live node now. */
  connected(companyId: number): Promise<Set<number>>;
  close(): void;
}

/**
 * Follows this node's agent sockets in a store shared by the nodes (the watchers' store, keyed by
 * workspace instead of conversation), so the router on any node knows who is there. Entries of a node
 * that died are ignored at once (membership) and dropped by the survivors, as for watchers.
 * `arrived` is called when an agent's first socket connects: the router may have work for them.
 */
export function trackInboxPresence(
  io: RealtimeServer,
  store: WatcherStore,
  cluster: WatcherCluster,
  arrived: (companyId: number, userId: number) => void,
  logger: Logger,
): InboxPresence {
  const { member, membership } = cluster;
  const live = (entries: WatcherEntry[]) => entries.filter((entry) => membership.isLive(entry.node));
  let closed = false;

  const entryOf = (socket: RealtimeSocket) => {
    const identity = socket.data;
    if (identity?.kind !== 'agent') return undefined;
    return { key: String(identity.companyId), companyId: identity.companyId, entry: { node: member, socketId: socket.id, userId: identity.userId } };
  };
  const warn = (error: unknown) => logger.warn({ err: error }, 'inbox presence could not be updated');

  const add = (socket: RealtimeSocket) => {
    const found = entryOf(socket);
    if (!found || closed) return;
    store
      .add(found.key, found.entry)
      .then((entries) => {
        if (!live(entries).some((other) => other.userId === found.entry.userId && other.socketId !== found.entry.socketId)) arrived(found.companyId, found.entry.userId);
      })
      .catch(warn);
  };
  const onConnection = (socket: RealtimeSocket) => {
    add(socket);
    socket.once('disconnect', () => {
      const found = entryOf(socket);
      if (found && !closed) store.remove(found.key, found.entry).catch(warn);
    });
  };

  let known = [...membership.live()];
  const onMembershipChange = () => {
    const departed = known.filter((node) => !membership.isLive(node));
    // Removed while cut off from Redis and back: this node's entries were dropped, so they are written again.
    if (!known.includes(member) && membership.isLive(member)) for (const socket of io.of('/').sockets.values()) add(socket);
    known = [...membership.live()];
    for (const node of departed) store.dropNode(node).catch(warn);
  };
  const onMembershipLost = () => {
    known = [];
  };

  io.on('connection', onConnection);
  membership.on('change', onMembershipChange);
  membership.on('lost', onMembershipLost);

  return {
    connected: async (companyId) => new Set(live(await store.entries(String(companyId))).map((entry) => entry.userId)),
    close: () => {
      closed = true;
      io.off('connection', onConnection);
      membership.off('change', onMembershipChange);
      membership.off('lost', onMembershipLost);
    },
  };
}
