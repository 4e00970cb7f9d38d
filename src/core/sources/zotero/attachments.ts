// Where a Zotero attachment's file is: `storage:NAME` → <data dir>/storage/<attachment key>/NAME;
// `attachments:REL` → REL under the base attachment directory (prefs.js `extensions.zotero.baseAttachmentPath`);
// anything else is an absolute path (a linked file). Zotero's own extracted text of an attachment is
// <data dir>/storage/<key>/.zotero-ft-cache. prefs.js lives in Zotero's profile directory, not the data directory.
// The database is input like any other file: a `storage:` name resolves inside storage/<key>/ only, an
// `attachments:` path inside the base directory only, and a key that is not Zotero's 8 characters is refused, so
// a crafted zotero.sqlite cannot make the import read a file elsewhere. Linked files (absolute paths) are read
// where they are, as Zotero does.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { ZoteroAttachment } from './library.js';

/** Zotero's default data directory: ~/Zotero on every platform (Zotero 5 and later). */
export function defaultZoteroDataDir(home: string = homedir()): string {
  return join(home, 'Zotero');
}

/** The folders that hold Zotero profiles (each with a prefs.js) on this platform. */
export function zoteroProfileRoots(
  home: string = homedir(),
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (platform === 'darwin') return [join(home, 'Library', 'Application Support', 'Zotero', 'Profiles')];
  if (platform === 'win32') return [join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Zotero', 'Zotero', 'Profiles')];
  return [join(home, '.zotero', 'zotero')];
}

/** The value of a `user_pref("NAME", "value")` line of a prefs.js, or null. */
export function readPref(prefsText: string, name: string): string | null {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`user_pref\\(\\s*"${esc}"\\s*,\\s*"((?:[^"\\\\]|\\\\.)*)"\\s*\\)`).exec(prefsText);
  return m ? JSON.parse(`"${m[1]}"`) : null;
}

/**
 * The base attachment directory for `attachments:` paths: from the prefs.js of the profile whose data directory is
 * `dataDir` (or the only profile that sets one). Null when no profile sets it.
 */
export async function findBaseAttachmentPath(dataDir: string, profileRoots: string[] = zoteroProfileRoots()): Promise<string | null> {
  const prefs = await profilePrefs(profileRoots);
  const withBase = prefs.filter((p) => readPref(p, 'extensions.zotero.baseAttachmentPath'));
  const sameDir = withBase.find((p) => {
    const dir = readPref(p, 'extensions.zotero.dataDir');
    return dir ? resolve(dir) === resolve(dataDir) : false;
  });
  const chosen = sameDir ?? (withBase.length === 1 ? withBase[0] : undefined);
  return chosen ? readPref(chosen, 'extensions.zotero.baseAttachmentPath') : null;
}

/** The text of every profile's prefs.js under the roots. */
async function profilePrefs(profileRoots: string[]): Promise<string[]> {
  const prefs: string[] = [];
  for (const root of profileRoots) {
    const dirs = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const d of dirs) {
      if (!d.isDirectory()) continue;
      const text = await readFile(join(root, d.name, 'prefs.js'), 'utf8').catch(() => null);
      if (text) prefs.push(text);
    }
  }
  return prefs;
}

/**
 * The data directory as Zotero decides it: a custom one set in a profile (Settings → Advanced → Files and Folders:
 * `extensions.zotero.useDataDir` and `extensions.zotero.dataDir` in prefs.js), else ~/Zotero.
 */
export async function findZoteroDataDir(profileRoots: string[] = zoteroProfileRoots(), home: string = homedir()): Promise<string> {
  for (const p of await profilePrefs(profileRoots)) {
    const custom = /user_pref\(\s*"extensions\.zotero\.useDataDir"\s*,\s*true\s*\)/.test(p)
      ? readPref(p, 'extensions.zotero.dataDir')
      : null;
    if (custom) return custom;
  }
  return defaultZoteroDataDir(home);
}

/** Zotero's item keys: 8 characters of A–Z and 0–9 (Zotero draws them from 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ). */
export const ZOTERO_KEY = /^[A-Z0-9]{8}$/;

/** `rel` resolved under `root`, or null when it leaves it (`..`, an absolute path) or names `root` itself. */
function inside(root: string, rel: string): string | null {
  const full = resolve(root, rel);
  const r = relative(resolve(root), full);
  return r && !r.startsWith('..') && !isAbsolute(r) ? full : null;
}

/** Why the attachment's file is not read (a path that leaves its folder, a malformed key), or null when it may be. */
export function attachmentRefusal(
  att: Pick<ZoteroAttachment, 'key' | 'linkMode' | 'path'>,
  baseAttachmentPath: string | null,
): string | null {
  if (!ZOTERO_KEY.test(att.key)) return `attachment key '${att.key}' is not a Zotero key (8 letters and digits)`;
  if (att.linkMode === 3 || !att.path) return null;
  if (att.path.startsWith('storage:')) {
    if (!inside(join('storage', att.key), att.path.slice('storage:'.length)))
      return `attachment ${att.key}: '${att.path}' leaves its storage folder`;
  }
  if (att.path.startsWith('attachments:') && baseAttachmentPath && !inside(baseAttachmentPath, att.path.slice('attachments:'.length))) {
    return `attachment ${att.key}: '${att.path}' leaves the base attachment directory`;
  }
  return null;
}

/** The attachment's file on disk, or null for a link to a URL, a path that cannot be resolved or one refused above. */
export function attachmentFile(
  att: Pick<ZoteroAttachment, 'key' | 'linkMode' | 'path'>,
  dataDir: string,
  baseAttachmentPath: string | null,
): string | null {
  if (attachmentRefusal(att, baseAttachmentPath) || att.linkMode === 3 || !att.path) return null;
  if (att.path.startsWith('storage:')) return inside(join(dataDir, 'storage', att.key), att.path.slice('storage:'.length));
  if (att.path.startsWith('attachments:'))
    return baseAttachmentPath ? inside(baseAttachmentPath, att.path.slice('attachments:'.length)) : null;
  return isAbsolute(att.path) ? att.path : null;
}

/** Zotero's extracted full text of an attachment, where it indexed it (never for a key that is not Zotero's). */
export function fullTextCacheFile(att: Pick<ZoteroAttachment, 'key'>, dataDir: string): string | null {
  if (!ZOTERO_KEY.test(att.key)) return null;
  const f = join(dataDir, 'storage', att.key, '.zotero-ft-cache');
  return existsSync(f) ? f : null;
}

/** True for a PDF attachment (by content type, else by file name). */
export function isPdfAttachment(att: Pick<ZoteroAttachment, 'contentType' | 'path'>): boolean {
  return att.contentType === 'application/pdf' || /\.pdf$/i.test(att.path ?? '');
}
