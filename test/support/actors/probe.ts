import { QueryTypes, type Sequelize } from 'sequelize';
import { AppError } from '../../../src/errors';
import type { ActorBehaviour } from '../../../src/actors/runtime/behaviour';

/**
 * A test actor kind that exercises every runtime feature and leaves evidence in Postgres: each
 * `increment` turn appends (actor, turn, node, epoch) to probe_turns through a fenced write, so the
 * one-owner invariant and "no stale write lands" can be checked from the database afterwards.
 */
declare module '../../../src/actors/runtime/protocol' {
  interface ActorProtocols {
    probe: {
      ping: { reply: { node: string; epoch: number; activations: number } };
      increment: { message: { holdMs?: number }; reply: { turn: number; node: string; epoch: number } };
      slow: { message: { ms: number }; reply: { aborted: boolean } };
      count: { reply: number };
      stream: { message: { chunks: number; gapMs: number }; reply: { sent: number; node: string }; chunk: string };
      fail: { message: { known: boolean } };
      remind: { message: { key: string; delayMs: number } };
      cancelReminder: { message: { key: string } };
      reminded: { message: { key: string } };
      remindedKeys: { reply: string[] };
    };
  }
}

export const PROBE_TABLE = `CREATE TABLE IF NOT EXISTS probe_turns (
  actor text NOT NULL,
  turn integer NOT NULL,
  node text NOT NULL,
  epoch integer NOT NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (actor, turn)
)`;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true });
  });

/** How many probe actors this process activated (passivation makes the next message activate again). */
let activations = 0;

export function probeBehaviour(sequelize: Sequelize): ActorBehaviour<'probe'> {
  return {
    kind: 'probe',
    async activate(env) {
      activations++;
      const [row] = await sequelize.query<{ turns: number }>('SELECT count(*)::int AS turns FROM probe_turns WHERE actor = :actor', {
        replacements: { actor: env.id },
        type: QueryTypes.SELECT,
      });
      let turns = row?.turns ?? 0;
      const reminded: string[] = [];
      return {
        handle: {
          ping: () => ({ node: env.node, epoch: env.epoch, activations }),
          count: () => turns,
          increment: async ({ holdMs }, turn) => {
            const next = turns + 1;
            // Work before the write (an AI call, say): a node frozen here writes late, under a stale epoch.
            if (holdMs) await sleep(holdMs, turn.signal);
            await env.write(async (transaction) => {
              const [{ now }] = (await sequelize.query<{ now: Date }>('SELECT clock_timestamp() AS now', { type: QueryTypes.SELECT, transaction })) as [{ now: Date }];
              await sequelize.query('INSERT INTO probe_turns (actor, turn, node, epoch, started_at) VALUES (:actor, :turn, :node, :epoch, :now)', {
                replacements: { actor: env.id, turn: next, node: env.node, epoch: env.epoch, now },
                transaction,
              });
            });
            turns = next;
            return { turn: next, node: env.node, epoch: env.epoch };
          },
          slow: async ({ ms }, turn) => ({ aborted: await sleep(ms, turn.signal) }),
          stream: async ({ chunks, gapMs }, turn) => {
            for (let i = 1; i <= chunks; i++) {
              turn.emit(`chunk ${i}`);
              if (gapMs) await sleep(gapMs);
            }
            return { sent: chunks, node: env.node };
          },
          fail: ({ known }) => {
            throw known ? new AppError(409, 'probe_conflict', 'The probe refused.') : new Error('probe exploded');
          },
          remind: ({ key, delayMs }) => env.remind({ type: 'reminded', key }, { key, delayMs }),
          cancelReminder: ({ key }) => env.cancelReminder(key),
          reminded: ({ key }) => void reminded.push(key),
          remindedKeys: () => reminded,
        },
      };
    },
  };
}
