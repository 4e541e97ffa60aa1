import { z } from 'zod';
import { migrate } from '../db/migrate';
import { defineCommand } from './command';

export const migrateCommand = defineCommand({
  usage: 'migrate',
  summary: 'Applies pending database migrations (the release phase of a deploy).',
  flags: {},
  migrateFirst: false,
  schema: z.object({}),
  async run(ctx) {
    return { migrated: await migrate(ctx.db.sequelize, ctx.logger) };
  },
});
