/**
 * Preloaded (NODE_OPTIONS=--require) into every process the bench starts. If the bench itself dies
 * without cleaning up (kill -9), its children are re-parented; they notice within half a second and
 * exit rather than linger holding shard leases and database connections.
 */
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 500).unref();
