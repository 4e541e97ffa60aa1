/**
 * The typed message contract of every actor kind. Each kind adds itself by declaration merging:
 *
 *   declare module '../runtime/protocol' {
 *     interface ActorProtocols {
 *       conversation: {
 *         visitorMessage: { message: { text: string }; reply: { messageId: number }; chunk: string };
 *       };
 *     }
 *   }
 *
 * A message is `{ type, ...fields }`; `reply` is what `ask` resolves with; `chunk` is what a
 * streaming ask yields before its reply.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface ActorProtocols {}

export type ActorKind = keyof ActorProtocols & string;

type Spec<K extends ActorKind, T extends MessageType<K>> = ActorProtocols[K][T];

export type MessageType<K extends ActorKind> = keyof ActorProtocols[K] & string;

export type MessageOf<K extends ActorKind, T extends MessageType<K> = MessageType<K>> = {
  [P in T]: { type: P } & (Spec<K, P> extends { message: infer M } ? M : Record<never, never>);
}[T];

export type ReplyOf<K extends ActorKind, T extends MessageType<K>> = Spec<K, T> extends { reply: infer R } ? R : void;

export type ChunkOf<K extends ActorKind, T extends MessageType<K>> = Spec<K, T> extends { chunk: infer C } ? C : never;

/** A message whose kind is only known at runtime (the wire, reminders). */
export interface UntypedMessage {
  type: string;
  [field: string]: unknown;
}
