import { readdirSync, readFileSync } from 'node:fs';
import { io, type Socket } from 'socket.io-client';
import { epochMs, MEASURED, type FromChild, type Receipts, type SocketSpec, type ToChild } from './fanoutProtocol';

/**
 * A load-generator child of the fan-out bench (forked, IPC): holds a share of the agents' sockets,
 * each connected, authorised and subscribed as the agent app does it, and notes when each socket
 * receives each measured `message.created`. The sockets are spread over children so that no single
 * event loop has to read 10,000 of them (it would time its own queue, not Parley).
 */
const sockets: Socket[] = [];
const receipts = new Map<number, Receipts>();
let disconnects = 0;
let otherEvents = 0;
let measuring = false;

const send = (message: FromChild) => process.send!(message);

interface Envelope {
  data?: { content?: unknown };
}

function onMessageCreated(node: number) {
  return (envelope: Envelope) => {
    const at = epochMs();
    const match = typeof envelope?.data?.content === 'string' ? MEASURED.exec(envelope.data.content) : null;
    if (!match) return void otherEvents++;
    const key = Number(match[1]);
    let entry = receipts.get(key);
    if (!entry) receipts.set(key, (entry = { key, at: [], node: [] }));
    entry.at.push(at);
    entry.node.push(node);
  };
}

function connected(url: string, token: string): Promise<Socket> {
  const socket = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true, timeout: 30_000 });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

/** As the agent app: connect, have the channel signed over HTTP (`POST /api/agent/broadcasting/auth`), subscribe. */
async function open(nodes: string[], spec: SocketSpec): Promise<void> {
  const url = nodes[spec.node]!;
  const socket = await connected(url, spec.token);
  sockets.push(socket);
  // Listening before subscribing: nothing published after the ack can be missed.
  socket.on('message.created', onMessageCreated(spec.node));
  socket.on('disconnect', () => void (measuring && disconnects++));
  const signed = await fetch(`${url}/api/agent/broadcasting/auth`, {
    method: 'POST',
    headers: { authorization: `Bearer ${spec.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ socket_id: socket.id, channel_name: spec.channel }),
  });
  if (signed.status !== 200) throw new Error(`broadcasting/auth answered ${signed.status}: ${await signed.text()}`);
  const { auth } = (await signed.json()) as { auth: string };
  const ack = (await socket.timeout(30_000).emitWithAck('subscribe', { channel: spec.channel, auth })) as { ok: boolean; message?: string };
  if (!ack.ok) throw new Error(`subscribe refused: ${ack.message ?? ''}`);
}

/** A connection that failed is retried twice (a 2-core box under a connection storm drops a few handshakes). */
async function openWithRetry(nodes: string[], spec: SocketSpec): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open(nodes, spec);
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

async function setup(nodes: string[], specs: SocketSpec[], concurrency: number): Promise<void> {
  const started = performance.now();
  const subscribed: number[] = [];
  let failed = 0;
  let firstError: string | undefined;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < specs.length; i = next++) {
        const spec = specs[i]!;
        try {
          await openWithRetry(nodes, spec);
          subscribed[spec.workspace] = (subscribed[spec.workspace] ?? 0) + 1;
        } catch (error) {
          failed++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  measuring = true;
  const fileLimit = /Max open files\s+(\S+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 'unknown';
  send({
    type: 'ready',
    subscribed: Array.from(subscribed, (n) => n ?? 0),
    failed,
    ...(firstError === undefined ? {} : { firstError }),
    seconds: (performance.now() - started) / 1000,
    openFiles: readdirSync('/proc/self/fd').length,
    fileLimit,
  });
}

process.on('message', (message: ToChild) => {
  switch (message.type) {
    case 'setup':
      setup(message.nodes, message.sockets, message.concurrency).catch((error: unknown) => send({ type: 'fatal', message: String(error) }));
      break;
    case 'clock':
      send({ type: 'clock', sentAt: message.sentAt, childAt: epochMs() });
      break;
    case 'collect': {
      const cpu = process.cpuUsage();
      send({ type: 'samples', receipts: [...receipts.values()], disconnects, otherEvents, cpuSeconds: (cpu.user + cpu.system) / 1e6, heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) });
      break;
    }
    case 'close':
      measuring = false;
      for (const socket of sockets) socket.close();
      setTimeout(() => process.exit(0), 200);
      break;
  }
});
process.on('disconnect', () => process.exit(0));
