import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/env';
import { conversationBehaviour } from '../../src/actors/conversation/behaviour';
import { visitorBehaviour } from '../../src/actors/visitor/behaviour';
import type { ActorBehaviour } from '../../src/actors/runtime/behaviour';
import { createLogger } from '../../src/logger';
import { startWeb } from '../../src/web';

interface Live {
  kind: string;
  id: string;
  shard: number;
  epoch: number;
  token: object;
}

/**
 * A Parley behaviour, unchanged, that also keeps which actors are active on this node (activated and
 * not yet deactivated). The host keys behaviours by kind and a later one wins, so passing these beside
 * Parley's own replaces them on this node only.
 */
function tracked<K extends 'conversation' | 'visitor'>(behaviour: ActorBehaviour<K>, active: Map<string, Live>): ActorBehaviour<K> {
  return {
    kind: behaviour.kind,
    turnDeadlineMs: behaviour.turnDeadlineMs,
    async activate(env, first) {
      const instance = await behaviour.activate(env, first);
      const key = `${env.kind}:${env.id}`;
      // A token, not the key: a newer activation of the same actor must not be erased by an older one's goodbye.
      const token = {};
      active.set(key, { kind: env.kind, id: env.id, shard: env.shard, epoch: env.epoch, token });
      return {
        handle: instance.handle,
        async deactivate() {
          if (active.get(key)?.token === token) active.delete(key);
          await instance.deactivate?.();
        },
      };
    },
  };
}

/**
 * A chaos-run web node: startWeb exactly as dist/src/server.js runs it, plus a loopback control port
 * whose GET /state says which shards this node serves and which conversations are active here.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const active = new Map<string, Live>();
  const web = await startWeb(config, logger, { behaviours: (deps) => [tracked(conversationBehaviour(deps), active), tracked(visitorBehaviour(deps), active)] });
  const control = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/state') return void res.writeHead(404).end();
    const state = {
      member: web.actors.member,
      owned: web.actors.ownedShards(),
      active: [...active.values()].filter((a) => a.kind === 'conversation').map(({ id, shard, epoch }) => ({ id, shard, epoch })),
      // Every kind, against the host's own count: more tracked than hosted means activations that finished
      // activating after the host had already closed them (they never get a deactivate call).
      tracked: active.size,
      hostActivations: web.actors.activeActors(),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state));
  }).listen(0, '127.0.0.1');
  await once(control, 'listening');
  // Printed whatever LOG_LEVEL says: the runner waits for this line.
  process.stdout.write(`${JSON.stringify({ msg: 'chaos node ready', port: web.port, control: (control.address() as AddressInfo).port, member: web.actors.member })}\n`);
  process.once('SIGTERM', () => {
    control.close();
    web.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos node failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
