import { chromium, type Browser } from 'playwright-core';

/**
 * Flags for a headless Chromium in a container: no sandbox (we often run as root), no GPU, and no
 * background traffic (updates, sync, QUIC probes) that would make network-level tests noisy.
 */
const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A headless system Chromium driven by playwright-core (which ships no browser of its own).
 * `CHROMIUM_PATH` points at another binary; the caller closes the browser when done.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS],
  });
}
