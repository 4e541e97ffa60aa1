/**
 * Reads until `done` holds or `ms` pass, and returns the last value read: the caller asserts on it,
 * so a timeout fails with the value that was actually there.
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
