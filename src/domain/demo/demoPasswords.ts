import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from '../../../config/env';

/**
 * The demo users' passwords, random per data directory and kept there (0600), so the start log and
 * `parley seed demo` can print them and no password is ever fixed or published.
 */
export type DemoPasswords = Record<string, string>;

const FILE = 'demo-passwords.json';

export function newDemoPassword(): string {
  return randomBytes(12).toString('base64url');
}

export function readDemoPasswords(dataDir: string): DemoPasswords {
  const file = join(dataDir, FILE);
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  return typeof parsed === 'object' && parsed !== null ? (parsed as DemoPasswords) : {};
}

export function writeDemoPasswords(dataDir: string, passwords: DemoPasswords): void {
  ensureDataDir(dataDir);
  writeFileSync(join(dataDir, FILE), `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
}
