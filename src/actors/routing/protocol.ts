declare module '../runtime/protocol' {
  interface ActorProtocols {
    /** One per workspace (id: the company id): the only place waiting conversations are given to agents in auto mode. */
    routing: {
      /** Something changed (a handoff, freed capacity, an agent arrived or came online): give waiting conversations to agents with room. */
      pump: { reply: { assigned: number } };
      /** The handoff route: route now, then say where this conversation stands (1 = next; null = it has an agent or is not waiting). */
      place: { message: { conversationId: string }; reply: { queuePosition: number | null } };
      /** The durable retry while the queue is not empty: catches a lost tell or an agent who came back without one. */
      sweep: { reply: { assigned: number } };
    };
  }
}

export {};
