import { connectRedis } from '../src/redis';
import { createLogger } from '../src/logger';

/**
 * The latency benchmark's baseline peer: republishes every message from ECHO_IN to ECHO_OUT. It uses
 * the same connection setup as the actor transport (connectRedis, one subscriber + one publisher),
 * so the only difference from a remote ask is the runtime itself.
 */
async function main(): Promise<void> {
  const url = process.env.REDIS_URL!;
  const logger = createLogger('silent');
  const [sub, pub] = await Promise.all([connectRedis(url, logger, 'echo-sub'), connectRedis(url, logger, 'echo-pub')]);
  const out = process.env.ECHO_OUT!;
  sub.on('message', (_channel: string, text: string) => void pub.publish(out, text));
  await sub.subscribe(process.env.ECHO_IN!);
  process.stdout.write(`${JSON.stringify({ msg: 'echo ready' })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`echo failed: ${String(error)}\n`);
  process.exit(1);
});
