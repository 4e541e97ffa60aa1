import { conversationBehaviour } from './conversation/behaviour';
import type { ActorDeps } from './deps';
import type { AnyBehaviour } from './runtime/host';
import type { Actors } from './runtime/router';
import { routingBehaviour } from './routing/behaviour';
import { visitorBehaviour } from './visitor/behaviour';

/** The actor kinds every Parley web node hosts. */
export function parleyBehaviours(deps: ActorDeps): AnyBehaviour[] {
  return [conversationBehaviour(deps), visitorBehaviour(deps), routingBehaviour(deps)];
}

/** An Actors that forwards to a system started later (behaviours are built before it exists). */
export function lateActors(system: () => Actors | undefined): Actors {
  const started = () => {
    const actors = system();
    if (!actors) throw new Error('the actor system has not started yet');
    return actors;
  };
  return {
    ask: (kind, id, message, options) => started().ask(kind, id, message, options),
    tell: (kind, id, message, options) => started().tell(kind, id, message, options),
    stream: (kind, id, message, options) => started().stream(kind, id, message, options),
  };
}
