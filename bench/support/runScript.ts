/** Runs a bench tool's `main` as a script: exit 0 once it resolved, else its stack on stderr and exit 1. */
export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
      process.exit(1);
    },
  );
}
