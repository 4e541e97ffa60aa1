import type { z } from 'zod';
import type { AppContext } from '../context';

/** One `parley` command: its flags (as parseArgs options), their zod schema, and what it prints. */
export interface Command<S extends z.ZodType = z.ZodType> {
  usage: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  schema: S;
  /** Commands that only touch the schema (migrate) run before the models are usable. */
  run(ctx: AppContext, input: z.output<S>): Promise<Record<string, unknown>>;
}

export const defineCommand = <S extends z.ZodType>(command: Command<S>): Command<S> => command;
