/**
 * A source could not be indexed. `permanent` failures (no searchable text, the site refused or
 * missing) are recorded at once; others (network, database) are worth retrying with backoff.
 */
export class IndexingFailed extends Error {
  override name = 'IndexingFailed';
  constructor(
    readonly reason: string,
    readonly permanent: boolean,
  ) {
    super(reason);
  }
}
