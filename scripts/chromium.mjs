// Headless Chromium as this project runs it (review screenshot, the plan-JSON
// consumer test): where it is, and the flags that keep it from reaching
// anything but the page it is given.
import { existsSync } from 'node:fs';

/** The Chromium binary: CHROMIUM, else the Debian package's; undefined when there is none. */
export function chromiumPath() {
  return [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (p) => p && existsSync(p),
  );
}

/** Flags for a headless run with its own throwaway profile `profileDir`. */
export function headlessFlags(profileDir) {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profileDir}`,
  ];
}
