// The headless Chromium fixture of the webview suites (the side panel, its Ask tab, the PDF viewer): Debian's
// /usr/bin/chromium driven by playwright-core, one browser per suite, launched once with the page server the suite
// needs and closed with it. Locally a missing browser skips the suite with the reason; under CI=true it fails, so a
// missing install step cannot hide. Screenshots go to .test-artifacts/.
import { mkdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(resolve(__dirname, '..', '..'), '.test-artifacts');

/** Why a Chromium suite cannot run here (a string), or false. Also false under CI=true, where it must run. */
export const noChromium: string | false =
  existsSync(CHROMIUM) || process.env.CI ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

interface ChromiumFixture<S> {
  /** The suite's browser (set once its `before` hook has run). */
  readonly browser: Browser;
  /** The suite's page server. */
  readonly server: S;
  /** Where a screenshot named `name` goes (the folder exists). */
  artifact(name: string): string;
}

/**
 * Registers the enclosing `describe`'s hooks: before its tests, `prepare` (e.g. build a bundle), the page server and
 * the browser; after them, both closed. Call it inside the describe whose tests use it.
 */
export function chromiumFixture<S extends { close(): Promise<void> }>(
  startServer: () => Promise<S>,
  prepare?: () => Promise<unknown>,
): ChromiumFixture<S> {
  let browser: Browser | undefined;
  let server: S | undefined;
  before(async () => {
    await prepare?.();
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the Chromium fixture's ${what} is used before its before hook ran`);
    return value;
  };
  return {
    get browser() {
      return ready(browser, 'browser');
    },
    get server() {
      return ready(server, 'server');
    },
    artifact: (name) => join(ARTIFACTS, name),
  };
}
