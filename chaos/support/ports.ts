export { freePort } from '../../src/db/freePort';

export const sleep = (ms: number): Promise<void> => new Promise((wake) => setTimeout(wake, ms));
