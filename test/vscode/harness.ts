// Runs a mocha suite inside the extension host of a real VS Code: code-server 1.100 (from npm) driven by
// Debian's Chromium through playwright-core. See ../shared/notes/real-vscode-tests.md for why this recipe.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { CHAT_MODEL_EXTENSION } from './chat-model/id.ts';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';

export const root = join(__dirname, '..', '..');
/** Where code-server is installed (its own package.json, outside our dependencies): `npm run setup:vscode`. */
export const codeServerDir = process.env.CORPUS_LENS_CODE_SERVER_DIR ?? join(root, '.vscode-test');
const codeServerBin = join(codeServerDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the host tests cannot run here, or undefined when they can. */
export function missingPrerequisite(): string | undefined {
  if (!existsSync(codeServerBin)) return `code-server is not installed in ${codeServerDir} (run: npm run setup:vscode)`;
  if (!existsSync(chromiumPath)) return `no Chromium at ${chromiumPath} (apt-get install chromium)`;
  return undefined;
}

interface Round {
  exitCode: number;
  summary: { passed: number; failed: number; failures: Array<{ title: string; error: string }> } | null;
}

export interface HostRun extends Round {
  log: string;
  /** The rounds of `options.then`, in order. */
  then: Round[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitForHealth(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('code-server did not answer /healthz in time');
}

/** One CommonJS file the extension host loads (`vscode` left to the host). */
async function bundleForExtensionHost(entry: string, outfile: string, define?: Record<string, string>): Promise<void> {
  await esbuild.build({
    entryPoints: [entry],
    define,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
  });
}

/**
 * Bundles the suite, starts code-server on a copy of the fixture workspace with the given user settings
 * and environment, opens the workbench in Chromium with the extension under development, and returns
 * when the suite calls `codeAutomationExit`.
 */
export async function runHostSuite(options: {
  settings?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  screenshot?: string;
  /** Folder for the screenshots the suite asks for (see suite/snapshot.ts). */
  artifacts?: string;
  /** The extension under development (default: this repository); a .vsix test passes an empty stub. */
  developmentPath?: string;
  /** A .vsix to install into the extensions folder before VS Code starts. */
  vsix?: string;
  /** The suite module in test/vscode/suite/ (default: extension.suite). */
  suite?: string;
  /**
   * Also install test/vscode/chat-model/ (a scripted language model VS Code offers through `vscode.lm`, registered with
   * the chat provider API that code-server 1.100 keeps proposed, so it is enabled for that extension alone).
   */
  chatModel?: boolean;
  /** Runs against the workbench page after the suite finished (e.g. to read the webview's content). */
  inspect?: (page: import('playwright-core').Page) => Promise<void>;
  /**
   * The suite again, in the same code-server and Chromium (their start is a good part of a short suite's time): before
   * each round its .vsix is installed over the last one and its settings replace the user settings, then a new window
   * opens, so a new extension host loads the newly installed extension.
   */
  then?: Array<{ vsix: string; settings?: Record<string, unknown> }>;
}): Promise<HostRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'cl-host-'));
  const suiteFile = join(scratch, 'suite', 'index.js');
  await bundleForExtensionHost(join(root, 'test', 'vscode', 'suite', 'index.ts'), suiteFile, {
    SUITE: JSON.stringify(options.suite ?? 'extension.suite'),
  });
  const extensionsDir = join(scratch, 'extensions');
  mkdirSync(extensionsDir, { recursive: true });
  // Installed, not a second development path: code-server loads only one extension under development.
  const chatModel = join(extensionsDir, `${CHAT_MODEL_EXTENSION}-0.0.0`);
  if (options.chatModel) {
    await bundleForExtensionHost(join(root, 'test', 'vscode', 'chat-model', 'extension.ts'), join(chatModel, 'extension.js'));
    cpSync(join(root, 'test', 'vscode', 'chat-model', 'package.json'), join(chatModel, 'package.json'));
  }
  const workspace = join(scratch, 'workspace');
  cpSync(join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
  const userData = join(scratch, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  const writeSettings = (settings?: Record<string, unknown>) =>
    writeFileSync(
      join(userData, 'User', 'settings.json'),
      JSON.stringify({ 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': false, ...settings }),
    );
  writeSettings(options.settings);
  const install = (vsix: string) =>
    execFileSync(
      process.execPath,
      [codeServerBin, '--install-extension', vsix, '--force', '--extensions-dir', extensionsDir, '--user-data-dir', userData],
      {
        env: { ...process.env, XDG_CONFIG_HOME: join(scratch, 'xdg-config'), XDG_DATA_HOME: join(scratch, 'xdg-data') },
        stdio: 'pipe',
      },
    );
  if (options.vsix) install(options.vsix);
  const summaryFile = join(scratch, 'summary.json');
  const snapshotRequest = join(scratch, 'snapshot-request.json');

  const port = await freePort();
  let log = '';
  const child = spawn(
    process.execPath,
    [
      codeServerBin,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--user-data-dir',
      userData,
      '--extensions-dir',
      extensionsDir,
      ...(options.chatModel ? ['--enable-proposed-api', CHAT_MODEL_EXTENSION] : []),
      workspace,
    ],
    {
      env: {
        ...process.env,
        ...options.env,
        XDG_CONFIG_HOME: join(scratch, 'xdg-config'),
        XDG_DATA_HOME: join(scratch, 'xdg-data'),
        CORPUS_LENS_TEST_SUMMARY: summaryFile,
        CORPUS_LENS_TEST_WORKSPACE: workspace,
        CORPUS_LENS_TEST_SNAPSHOT: snapshotRequest,
        CORPUS_LENS_TEST_SUITE: options.suite ?? 'extension.suite',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so the extension host and watchers stop with it
    },
  );
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  let browser: Browser | undefined;
  try {
    await waitForHealth(port, child, 30_000);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => (log += `[console] ${m.text()}\n`));
    page.on('response', (r) => {
      if (r.status() >= 400) log += `[http ${r.status()}] ${r.url()}\n`;
    });
    let onExit: (code: number) => void = () => undefined;
    await page.exposeFunction('codeAutomationExit', (code: number) => onExit(code));
    const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(options.developmentPath ?? root)],
      ['extensionTestsPath', remote(suiteFile)],
    ]);
    const round = async (): Promise<Round> => {
      rmSync(summaryFile, { force: true });
      const exited = new Promise<number>((resolve) => (onExit = resolve));
      // Loading the workbench takes well over playwright's default 30 s on a machine whose 2 cores are shared by
      // several test runs.
      await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`, {
        timeout: 120_000,
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<number>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the extension-host suite did not finish in time')), options.timeoutMs ?? 120_000);
      });
      const snapshots = serveSnapshots(page, snapshotRequest, options.artifacts);
      const exitCode = await Promise.race([exited, timeout])
        .finally(() => snapshots.stop())
        .catch(async (err: Error) => {
          if (options.screenshot) await page.screenshot({ path: options.screenshot }).catch(() => undefined);
          throw new Error(`${err.message}\n--- code-server and browser log (tail) ---\n${log.slice(-5000)}`);
        });
      clearTimeout(timer);
      return { exitCode, summary: existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : null };
    };
    const first = await round();
    await options.inspect?.(page);
    if (options.screenshot) await page.screenshot({ path: options.screenshot }).catch(() => undefined);
    const then: Round[] = [];
    for (const next of options.then ?? []) {
      install(next.vsix);
      writeSettings(next.settings);
      then.push(await round());
    }
    return { ...first, log, then };
  } finally {
    await browser?.close().catch(() => undefined);
    // For a failure seen only in CI: code-server's and the browser's output, and the extension's own log channel.
    if (options.artifacts) {
      const name = options.suite ?? 'extension.suite';
      writeFileSync(join(options.artifacts, `${name}.log`), log);
      if (existsSync(join(userData, 'logs'))) cpSync(join(userData, 'logs'), join(options.artifacts, `${name}-logs`), { recursive: true });
    }
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    child.stdout!.destroy();
    child.stderr!.destroy();
  }
}

/**
 * Answers the suite's snapshot requests: the suite (inside the extension host, which cannot see the
 * workbench) writes {name} to a file; this takes a screenshot and writes back the text of every frame,
 * webviews included, so the suite can assert what the user sees.
 */
function serveSnapshots(page: import('playwright-core').Page, requestFile: string, artifacts?: string): { stop(): void } {
  let busy = false;
  const timer = setInterval(async () => {
    if (busy || !existsSync(requestFile)) return;
    busy = true;
    try {
      const { name, actions } = JSON.parse(readFileSync(requestFile, 'utf8')) as { name: string; actions?: UiAction[] };
      let error: string | undefined;
      for (const a of actions ?? []) {
        try {
          await act(page, a);
        } catch (err) {
          error = `${JSON.stringify(a)}: ${(err as Error).message.split('\n')[0]}`;
          break;
        }
      }
      if (artifacts) await page.screenshot({ path: join(artifacts, `vscode-${name}.png`) }).catch(() => undefined);
      const texts: string[] = [];
      for (const frame of page.frames()) texts.push(await frame.evaluate(() => document.body?.innerText ?? '').catch(() => ''));
      // Written aside and renamed, as the suite writes its request: the suite polls for the reply.
      writeFileSync(`${requestFile}.reply.tmp`, JSON.stringify({ texts, error }));
      renameSync(`${requestFile}.reply.tmp`, `${requestFile}.reply`);
      rmSync(requestFile, { force: true });
    } finally {
      busy = false;
    }
  }, 200);
  return { stop: () => clearInterval(timer) };
}

/** What a snapshot request may do first in the webview frame holding `selector` (CSS; it pierces shadow roots). */
export type UiAction = { click: string } | { fill: string; text: string } | { press: string; key: string } | { hover: string };

async function act(page: import('playwright-core').Page, a: UiAction): Promise<void> {
  const selector = 'click' in a ? a.click : 'fill' in a ? a.fill : 'press' in a ? a.press : a.hover;
  const until = Date.now() + 10_000;
  for (;;) {
    for (const frame of page.frames()) {
      const found = await frame.$(selector).catch(() => null);
      if (!found) continue;
      if ('click' in a) await found.click();
      else if ('fill' in a) await found.fill(a.text);
      else if ('press' in a) await found.press(a.key);
      else await found.hover();
      return;
    }
    if (Date.now() > until) throw new Error(`no frame has ${selector}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
