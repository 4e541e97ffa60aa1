import { strict as assert } from 'node:assert';
import { createLogger } from '../../src/logger';
import { Activation, NotOwner, type UntypedInstance } from '../../src/actors/runtime/activation';
import type { ActivationEnv } from '../../src/actors/runtime/behaviour';

/** An actor whose state load the test finishes by hand, and what became of its instance. */
function slowActivation() {
  let finishLoading!: () => void;
  const loaded = new Promise<void>((resolve) => (finishLoading = resolve));
  const seen = { handled: 0, deactivated: 0 };
  const instance: UntypedInstance = {
    handle: { ping: () => ++seen.handled },
    deactivate: () => void seen.deactivated++,
  };
  const env = { kind: 'probe', id: 'a', node: 'n1', shard: 1, epoch: 1, logger: createLogger('silent') } as unknown as ActivationEnv<never>;
  const activation = new Activation(env, async () => (await loaded, instance), 1_000, () => undefined);
  return { activation, finishLoading, seen };
}

describe('an actor activation', () => {
  it('closed while its state loads: the copy never serves, is deactivated, and the caller is sent to the new owner', async () => {
    const { activation, finishLoading, seen } = slowActivation();
    const answer = activation.deliver({ type: 'ping' }, { deadline: Date.now() + 1_000 });
    await activation.close(); // the shard left this node while the state was loading
    finishLoading();
    await assert.rejects(answer, NotOwner);
    assert.deepEqual(seen, { handled: 0, deactivated: 1 });
  });

  it('activated first, closed after: the turn runs and deactivation follows once', async () => {
    const { activation, finishLoading, seen } = slowActivation();
    const answer = activation.deliver({ type: 'ping' }, { deadline: Date.now() + 1_000 });
    finishLoading();
    assert.equal(await answer, 1);
    await activation.close();
    await activation.close();
    assert.deepEqual(seen, { handled: 1, deactivated: 1 });
  });
});
