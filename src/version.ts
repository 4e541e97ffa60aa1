import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Parley's version, from package.json (the OpenAPI document's `info.version`, `parley --version`). */
export function packageVersion(): string {
  try {
    // dist/src -> the project root
    return (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
