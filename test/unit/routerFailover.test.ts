import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { ActorRouter, type RouterOptions } from '../../src/actors/runtime/router';
import type { Envelope, Transport } from '../../src/actors/runtime/transport';
import { AppError } from '../../src/errors';
import '../support/actors/probe';

/** A membership whose live list the test edits; `change` is what the real one emits. */
function membership(live: string[]) {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    self: 'caller',
    settled: true,
    live: () => live,
    isLive: (member: string) => live.includes(member),
    setLive(next: string[]) {
      live = next;
      emitter.emit('change');
    },
  });
}

const router = (options: Pick<RouterOptions, 'leases'> & { membership: ReturnType<typeof membership> }) =>
  new ActorRouter({ self: 'caller', logger: pino({ level: 'silent' }), ...options } as unknown as RouterOptions);

/** Regressions the chaos suite found (docs/chaos.md, findings 1 and 2). */
describe('actor router: owners that die or freeze', () => {
  it('an owner lost while the PUBLISH is in flight fails the ask and leaves no unhandled rejection', async () => {
    const members = membership(['caller', 'owner']);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const asking = router({ membership: members, leases: { holder: async () => 'owner' } as never });
      // A slow PUBLISH (Redis reconnecting): the owner leaves the live list while it is out.
      asking.connect({ send: () => new Promise<number>((resolve) => setTimeout(() => resolve(1), 300)), close: async () => {} });
      const asked = asking.ask('probe', 'p-1', { type: 'ping' }, { timeoutMs: 5_000 });
      setTimeout(() => members.setLive(['caller']), 50);
      await assert.rejects(asked, (error: unknown) => error instanceof AppError && error.code === 'owner_lost');
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an ask is not sent to an owner that left the live list; it goes to the lease\'s next holder', async () => {
    const members = membership(['caller', 'successor']);
    let holder = 'frozen';
    setTimeout(() => (holder = 'successor'), 500);
    const sent: string[] = [];
    const asking = router({ membership: members, leases: { holder: async () => holder } as never });
    const transport: Transport = {
      // The frozen node's subscription still counts as a receiver, but it never answers.
      send: async (member: string, envelope: Envelope) => {
        sent.push(member);
        if (member === 'successor' && envelope.t === 'ask') setImmediate(() => asking.receive({ t: 'ok', c: envelope.c, v: 'answered' } as Envelope));
        return 1;
      },
      close: async () => {},
    };
    asking.connect(transport);
    const started = Date.now();
    assert.equal(await asking.ask('probe', 'p-2', { type: 'ping' }, { timeoutMs: 4_000 }), 'answered');
    assert.ok(Date.now() - started < 1_500, 'answered by the successor soon after the lease moved, not at the deadline');
    assert.deepEqual(sent, ['successor']);
  });
});
