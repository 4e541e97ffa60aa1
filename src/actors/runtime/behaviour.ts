import type { Transaction } from 'sequelize';
import type { Logger } from 'pino';
import type { ActorKind, ChunkOf, MessageOf, MessageType, ReplyOf } from './protocol';

/** What an activation may use for its whole life on this node. */
export interface ActivationEnv<K extends ActorKind> {
  readonly kind: K;
  readonly id: string;
  /** This node's member id (`nodeId:incarnation`). */
  readonly node: string;
  readonly shard: number;
  /** The shard's fencing epoch this node acquired; writes under an older epoch are refused. */
  readonly epoch: number;
  readonly logger: Logger;
  /**
   * Runs `work` in a Postgres transaction that first checks this activation's epoch is still the
   * shard's current one (and holds it until commit). A stale epoch rolls back and deactivates the actor.
   */
  write<T>(work: (transaction: Transaction) => Promise<T>): Promise<T>;
  /** A durable delayed message to this actor; scheduling an existing key replaces it. */
  remind(message: MessageOf<K>, options: { key: string; delayMs: number }): Promise<void>;
  cancelReminder(key: string): Promise<void>;
}

/** One turn: the only code that runs for this actor until it settles. */
export interface Turn<Chunk> {
  /** Aborted at the turn's deadline or when the node stops serving the shard. */
  readonly signal: AbortSignal;
  /** Sends an ordered chunk to a streaming caller (ignored for plain asks). */
  emit(chunk: Chunk): void;
}

export type Handlers<K extends ActorKind> = {
  [T in MessageType<K>]: (message: MessageOf<K, T>, turn: Turn<ChunkOf<K, T>>) => Promise<ReplyOf<K, T>> | ReplyOf<K, T>;
};

export interface ActorInstance<K extends ActorKind> {
  handle: Handlers<K>;
  /** Called when the actor passivates or its shard moves; state is already safe in Postgres. */
  deactivate?(): Promise<void> | void;
}

/** An actor kind's behaviour: how to load one actor (from Postgres) when a message first reaches it. */
export interface ActorBehaviour<K extends ActorKind> {
  readonly kind: K;
  /**
   * `first` is the message that woke the actor (its first turn runs right after): a kind may read
   * what that turn needs in the same statement as its state (the visitor's first heartbeat).
   */
  activate(env: ActivationEnv<K>, first: MessageOf<K>): Promise<ActorInstance<K>>;
  /** A turn running longer than this is aborted (default: the runtime's turn deadline). */
  readonly turnDeadlineMs?: number;
  /** Idle actors of this kind passivate after this long, or after the runtime's idle time if that is shorter. */
  readonly idleMs?: number;
}
