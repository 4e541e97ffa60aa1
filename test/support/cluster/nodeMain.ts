import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../config/env';
import { AppError } from '../../../src/errors';
import { createLogger } from '../../../src/logger';
import { emitRaw } from '../sockets';
import type { RealtimeEventName } from '../../../src/realtime/events';
import { startWeb } from '../../../src/web';
import { probeBehaviour } from '../actors/probe';

/**
 * A real web node (the same startWeb as dist/src/server.js, plus the probe actor kind) with a
 * loopback control port through which a test asks actors via this node's router, reads which
 * shards it owns, and makes it emit realtime events as an actor living here would. Test support only.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const web = await startWeb(config, logger, { behaviours: ({ ctx }) => [probeBehaviour(ctx.db.sequelize)] });
  const routes: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    'GET /state': async () => ({ member: web.actors.member, owned: web.actors.ownedShards(), active: web.actors.activeActors(), byKind: web.actors.activeActorsByKind() }),
    'POST /ask': async ({ kind, id, message, options }) => {
      try {
        return { value: await web.actors.ask(kind as 'probe', id as string, message as never, options as object) };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { error: { status: error.status, code: error.code, message: error.message } };
      }
    },
    // A busy node: its event loop blocked (a long synchronous task), its sockets left open. The line
    // goes out before the loop blocks (stdout to a pipe is synchronous), so the test knows it is blocked.
    // `then` is asked the moment the loop is free again, before any event that came meanwhile is seen.
    'POST /block': async ({ ms, token, then }) => {
      process.stdout.write(`${JSON.stringify({ msg: 'blocking the event loop', ms, token })}\n`);
      const until = Date.now() + Number(ms);
      while (Date.now() < until);
      return then ? routes['POST /ask']!(then as Record<string, unknown>) : undefined;
    },
    'POST /emit': async ({ channel, event, data, seq }) =>
      emitRaw(web.realtime, channel as string, event as RealtimeEventName, data, seq as number),
  };
  const control = createServer((req, res) => {
    const route = routes[`${req.method} ${req.url}`];
    if (!route) return void res.writeHead(404).end();
    readJson(req)
      .then(route)
      .then(
        (body) => (body === undefined ? res.writeHead(204).end() : res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
  }).listen(0, '127.0.0.1');
  // A test's request may wait on an idle pooled connection while the node is blocked (/block): a
  // short keep-alive timeout would fire as the node wakes and reset it.
  control.keepAliveTimeout = 60_000;
  await once(control, 'listening');
  logger.info({ port: (control.address() as AddressInfo).port }, 'control listening');
  process.once('SIGTERM', () => {
    control.close();
    web.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  // As server.ts: another process took the database, so this node stops and exits non-zero.
  void web.lost.then((error) => {
    process.stderr.write(`cluster test node stopping: ${error.message}\n`);
    control.close();
    void web.stop().finally(() => process.exit(1));
  });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of req.setEncoding('utf8')) body += chunk as string;
  return body ? (JSON.parse(body) as Record<string, unknown>) : {};
}

main().catch((error: unknown) => {
  process.stderr.write(`cluster test node failed: ${String(error)}\n`);
  process.exit(1);
});
