import { Client } from 'pg';
import { ADMIN_DATABASE_URL } from './env';

/** One short-lived connection (default: the admin database, to create and drop test databases). */
export async function withClient<T>(run: (client: Client) => Promise<T>, connectionString = ADMIN_DATABASE_URL): Promise<T> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
