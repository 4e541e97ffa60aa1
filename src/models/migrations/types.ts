import type { Sequelize } from 'sequelize';
import type { RunnableMigration } from 'umzug';

/** A migration runs against the Sequelize instance; plain SQL keeps indexes and constraints explicit. */
export type Migration = RunnableMigration<Sequelize> & {
  up: NonNullable<RunnableMigration<Sequelize>['up']>;
};
