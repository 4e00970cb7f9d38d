// An embedded corpus is a PostgreSQL data folder (PG_VERSION, base/, global/ …). A folder picker lets the user
// land inside it or pick its parent; this finds the corpus folder the user meant.
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

const isCorpus = (dir: string): boolean => existsSync(path.join(dir, 'PG_VERSION'));

/** Files a corpus can be indexed from (what Index Folder reads). */
const PAPER_FILE = /\.(pdf|tex|md|markdown|bib|html?)$/i;

/**
 * How many paper files a folder that is not a corpus holds (0 for a corpus, an empty folder, or one of other files):
 * the author picked the papers, not the corpus made of them.
 */
export function paperFilesIn(folder: string): number {
  if (isCorpus(folder)) return 0;
  try {
    return readdirSync(folder).filter((n) => PAPER_FILE.test(n)).length;
  } catch {
    return 0;
  }
}

/**
 * The corpus folder for a picked folder: the picked folder itself, the corpus folder it is inside (`corpus/base`
 * → `corpus`), or its one child that is a corpus (`.corpus-lens` → `.corpus-lens/sample-corpus`). Else the
 * picked folder (a new, empty corpus).
 */
export function corpusFolderFor(picked: string): string {
  const resolved = path.resolve(picked);
  for (let dir = resolved; ; dir = path.dirname(dir)) {
    if (isCorpus(dir)) return dir;
    if (path.dirname(dir) === dir) break;
  }
  let children: string[];
  try {
    children = readdirSync(resolved)
      .map((n) => path.join(resolved, n))
      .filter((p) => statSync(p).isDirectory() && isCorpus(p));
  } catch {
    return resolved;
  }
  return children.length === 1 ? children[0] : resolved;
}
