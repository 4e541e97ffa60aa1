import type { Redis } from 'ioredis';

/** One agent socket subscribed to a conversation's channel, on the node that holds the socket. */
export interface WatcherEntry {
  node: string;
  socketId: string;
  userId: number;
}

/**
 * Where the sockets watching each conversation are kept, so any node can answer who is looking.
 * `add` and `remove` answer the conversation's entries as they stood right after the change, read in
 * the same atomic step: two tabs of one agent joining at once on two nodes see each other's entry in
 * exactly one of the two answers, so the agent's arrival is announced once.
 */
export interface WatcherStore {
  add(conversationId: string, entry: WatcherEntry): Promise<WatcherEntry[]>;
  /** `removed` is false when the entry was not there (already dropped, or never added). */
  remove(conversationId: string, entry: WatcherEntry): Promise<{ removed: boolean; entries: WatcherEntry[] }>;
  entries(conversationId: string): Promise<WatcherEntry[]>;
  /** Whether each conversation has an entry, in order: one read for many (src/realtime/watchPoll.ts). */
  watchedAmong(conversationIds: string[]): Promise<boolean[]>;
  /** Drops every entry of a node that left; the conversations that had one, answered only to the caller that dropped them. */
  dropNode(node: string): Promise<string[]>;
}

// Node ids (`nodeId:incarnation`) and socket ids never hold a space.
const field = (entry: WatcherEntry) => `${entry.node} ${entry.socketId}`;

function entryOf(key: string, userId: string | number): WatcherEntry {
  const [node = '', socketId = ''] = key.split(' ');
  return { node, socketId, userId: Number(userId) };
}

/** Single-node mode: one process holds every socket, so its memory is the whole truth. */
export class LocalWatcherStore implements WatcherStore {
  private readonly conversations = new Map<string, Map<string, number>>();

  async add(conversationId: string, entry: WatcherEntry): Promise<WatcherEntry[]> {
    let sockets = this.conversations.get(conversationId);
    if (!sockets) this.conversations.set(conversationId, (sockets = new Map()));
    sockets.set(field(entry), entry.userId);
    return this.read(conversationId);
  }

  async remove(conversationId: string, entry: WatcherEntry): Promise<{ removed: boolean; entries: WatcherEntry[] }> {
    const sockets = this.conversations.get(conversationId);
    const removed = sockets?.delete(field(entry)) ?? false;
    if (sockets?.size === 0) this.conversations.delete(conversationId);
    return { removed, entries: this.read(conversationId) };
  }

  async entries(conversationId: string): Promise<WatcherEntry[]> {
    return this.read(conversationId);
  }

  async watchedAmong(conversationIds: string[]): Promise<boolean[]> {
    return conversationIds.map((id) => this.conversations.has(id)); // an emptied conversation is deleted
  }

  async dropNode(): Promise<string[]> {
    return []; // the only node is this one
  }

  private read(conversationId: string): WatcherEntry[] {
    return [...(this.conversations.get(conversationId) ?? [])].map(([key, userId]) => entryOf(key, userId));
  }
}

// KEYS: the conversation's hash, the node's set of conversations. ARGV: field, user id, conversation id.
const ADD = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return redis.call('HGETALL', KEYS[1])`;

const REMOVE = `
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
return {removed, redis.call('HGETALL', KEYS[1])}`;

// KEYS: conversation hashes. A hash whose last field was deleted is gone, so EXISTS says whether anyone watches.
const WATCHED_AMONG = `
local answers = {}
for i, key in ipairs(KEYS) do answers[i] = redis.call('EXISTS', key) end
return answers`;

// KEYS: the node's set. ARGV: the conversation hash key prefix, the node's field prefix.
const DROP_NODE = `
local conversations = redis.call('SMEMBERS', KEYS[1])
redis.call('DEL', KEYS[1])
local changed = {}
for _, id in ipairs(conversations) do
  local key = ARGV[1] .. id
  local dropped = false
  for _, name in ipairs(redis.call('HKEYS', key)) do
    if string.sub(name, 1, #ARGV[2]) == ARGV[2] then
      redis.call('HDEL', key, name)
      dropped = true
    end
  end
  if dropped then table.insert(changed, id) end
end
return changed`;

/**
 * Cluster mode: a hash per conversation (`<node> <socket id>` -> user id) and, per node, the set of
 * conversations it has entries in, so a dead node's entries can be found and dropped in one step.
 */
export class RedisWatcherStore implements WatcherStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async add(conversationId: string, entry: WatcherEntry): Promise<WatcherEntry[]> {
    const flat = (await this.redis.eval(ADD, 2, this.conversationKey(conversationId), this.nodeKey(entry.node), field(entry), entry.userId, conversationId)) as string[];
    return entriesOf(flat);
  }

  async remove(conversationId: string, entry: WatcherEntry): Promise<{ removed: boolean; entries: WatcherEntry[] }> {
    const [removed, flat] = (await this.redis.eval(REMOVE, 1, this.conversationKey(conversationId), field(entry))) as [number, string[]];
    return { removed: removed === 1, entries: entriesOf(flat) };
  }

  async entries(conversationId: string): Promise<WatcherEntry[]> {
    const all = await this.redis.hgetall(this.conversationKey(conversationId));
    return Object.entries(all).map(([key, userId]) => entryOf(key, userId));
  }

  async watchedAmong(conversationIds: string[]): Promise<boolean[]> {
    if (conversationIds.length === 0) return [];
    const keys = conversationIds.map((id) => this.conversationKey(id));
    const answers = (await this.redis.eval(WATCHED_AMONG, keys.length, ...keys)) as number[];
    return answers.map((exists) => exists === 1);
  }

  async dropNode(node: string): Promise<string[]> {
    return (await this.redis.eval(DROP_NODE, 1, this.nodeKey(node), this.conversationKey(''), `${node} `)) as string[];
  }

  private conversationKey(conversationId: string): string {
    return `${this.prefix}watchers:${conversationId}`;
  }

  private nodeKey(node: string): string {
    return `${this.prefix}watchers-of-node:${node}`;
  }
}

/** HGETALL's flat `[field, value, field, value, ...]` as entries. */
function entriesOf(flat: string[]): WatcherEntry[] {
  const entries: WatcherEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push(entryOf(flat[i]!, flat[i + 1]!));
  return entries;
}

/** Redis when the nodes share one (cluster mode), this process's memory otherwise. */
export const watcherStoreFor = (redis: Redis | undefined, prefix: string): WatcherStore => (redis ? new RedisWatcherStore(redis, prefix) : new LocalWatcherStore());
