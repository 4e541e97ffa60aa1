/** The rejection of `work`, which must reject: the caller asserts on what it was. */
export async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}
