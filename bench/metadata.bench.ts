// `npm run bench -- metadata`: title, authors and year read from typeset PDFs against what their LaTeX sources say
// (`\title`, `\author`, the date), for the info dictionary alone (the baseline) and the full reader (XMP, info and the
// first page's layout: src/core/ingest/pdf-metadata.ts), in the same run.
//
// The sources: bench/fixtures/metadata/*.tex (written by this team, small but with each class's real front matter,
// compiled with its own class from Debian's texlive-publishers / texlive-science: a missing class is skipped and
// said), the repo's samples (article class), and the shared SciPy 1.0 paper (../shared/eval, its own class when
// installed, else its real title and author list typeset with article). The layout rules were tuned on the TUNED
// sources only; the others are held out and reported apart.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { readPaperFile, readPdfBytes } from '../src/core/ingest/index.ts';
import { latexAuthors } from '../src/core/ingest/latex.ts';
import { pdfLayout } from '../src/core/ingest/pdf-layout.ts';
import { infoMetadata } from '../src/core/ingest/pdf-metadata.ts';
import { normaliseTitle } from '../src/core/paper/ids.ts';

const ROOT = join(__dirname, '..');
const FIXTURES = join(__dirname, 'fixtures', 'metadata');
const SCIPY = join(ROOT, '..', 'shared', 'eval', 'latex', 'scipy-1.0-paper');
/** The sources the layout rules were tuned on; every other source is held out. */
const TUNED = new Set([
  'ieee-conference',
  'acmart-sigconf',
  'elsarticle-preprint',
  'llncs-proceedings',
  'revtex-prl',
  'amsart-journal',
  'article-and',
  'report-thesis',
  'ieee-journal',
  'acmart-acmsmall',
]);

interface Truth {
  title: string;
  authors: string[];
  /** Null when the source states no year (not scored for the year). */
  year: number | null;
}
interface Guess {
  title: string | null;
  authors: string[];
  year: number | null;
}
interface Case {
  name: string;
  group: 'tuned' | 'held-out' | 'samples' | 'scipy';
  /** The .tex to compile, and the folder it is compiled in (its \input files beside it). */
  tex: string;
  cls: string;
}

/** The year a source states: its \\date, else the year commands of the classes (\\acmYear, \\pubyear, \\received …). */
function sourceYear(tex: string, fromDate: number | null): number | null {
  if (fromDate) return fromDate;
  const blank = tex.replace(/(^|[^\\])%.*$/gm, '$1');
  for (const m of blank.matchAll(/\\(?:acmYear|copyrightyear|pubyear|received|accepted|IEEEpubid|markboth)\s*\{([^\n]*)/g)) {
    // Not an ISBN's '/21/' nor a price: a four-digit year on its own ('\copyright2021' counts).
    const y = /(?:^|\D)((?:19|20)\d\d)(?!\d)/.exec(m[1].replace(/\d{3}-\d-\d{4}-\d{4}-\d\/\d{2}/g, ''));
    if (y) return Number(y[1]);
  }
  return null;
}

/** What a LaTeX source says its title, authors and year are: read by the project's LaTeX reader, not typed here. */
async function truthOf(tex: string): Promise<Truth> {
  const r = await readPaperFile(tex);
  const p = r.papers[0];
  if (!p?.title) throw new Error(`${tex}: the LaTeX reader found no title`);
  return { title: p.title, authors: p.authors, year: sourceYear(readFileSync(tex, 'utf8'), p.year) };
}

const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z\s-]/g, '')
    .trim();
/** Two names are one author when the surnames agree and the first initials do (an initial matches a full name). */
function sameAuthor(a: string, b: string): boolean {
  const wa = fold(a).split(/\s+/);
  const wb = fold(b).split(/\s+/);
  return wa[wa.length - 1] === wb[wb.length - 1] && wa[0]?.[0] === wb[0]?.[0];
}

function authorF1(truth: string[], guess: string[]): number {
  if (!truth.length) return guess.length ? 0 : 1;
  const left = [...truth];
  let hit = 0;
  for (const g of guess) {
    const i = left.findIndex((t) => sameAuthor(t, g));
    if (i >= 0) {
      hit++;
      left.splice(i, 1);
    }
  }
  if (!hit) return 0;
  const p = hit / guess.length;
  const r = hit / truth.length;
  return (2 * p * r) / (p + r);
}

function installed(cls: string): boolean {
  try {
    return !!execFileSync('kpsewhich', [`${cls}.cls`], { encoding: 'utf8' }).trim();
  } catch {
    return false;
  }
}

/** Compiles once (page 1 is all that is read); a missing figure is an error TeX goes past, as authors' builds do. */
function compile(tex: string, dir: string): string {
  const pdf = join(dir, basename(tex).replace(/\.tex$/, '.pdf'));
  rmSync(pdf, { force: true });
  try {
    execFileSync('pdflatex', ['-interaction=nonstopmode', '-output-directory', dir, tex], {
      cwd: join(tex, '..'),
      stdio: 'ignore',
      timeout: 120_000,
    });
  } catch (err) {
    if (!existsSync(pdf)) throw err;
  }
  return pdf;
}

const classOf = (tex: string) => /\\documentclass\s*(?:\[[^\]]*\])?\s*\{([^}]+)\}/.exec(readFileSync(tex, 'utf8'))?.[1] ?? 'article';

function cases(work: string): Case[] {
  const out: Case[] = [];
  for (const f of readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.tex'))
    .sort()) {
    const name = f.replace(/\.tex$/, '');
    out.push({ name, group: TUNED.has(name) ? 'tuned' : 'held-out', tex: join(FIXTURES, f), cls: classOf(join(FIXTURES, f)) });
  }
  const samples = join(ROOT, 'samples');
  for (const tex of [
    join(samples, 'sample-paper.tex'),
    ...readdirSync(join(samples, 'corpus'))
      .filter((f) => f.endsWith('.tex'))
      .map((f) => join(samples, 'corpus', f)),
  ])
    out.push({ name: `samples/${basename(tex, '.tex')}`, group: 'samples', tex, cls: classOf(tex) });
  if (existsSync(join(SCIPY, 'paper.tex'))) {
    if (installed('wlscirep')) out.push({ name: 'scipy-1.0 (wlscirep)', group: 'scipy', tex: join(SCIPY, 'paper.tex'), cls: 'wlscirep' });
    else {
      // The real title and author list (core-dev.tex), typeset with article: the paper's class is not in Debian.
      console.log('scipy-1.0: its class wlscirep is not installed: its real title and authors are typeset with article instead');
      const title = /\\title\{([^\n]*)\}/.exec(readFileSync(join(SCIPY, 'paper.tex'), 'utf8'))![1];
      const authors = latexAuthors(readFileSync(join(SCIPY, 'core-dev.tex'), 'utf8'));
      const tex = join(work, 'scipy-article.tex');
      writeFileSync(
        tex,
        [
          '\\documentclass{article}',
          `\\title{${title}}`,
          `\\author{${authors.join(' \\and ')}}`,
          '\\date{}',
          '\\begin{document}',
          '\\maketitle',
          '\\begin{abstract}',
          'SciPy is an open source scientific computing library for the Python programming language.',
          '\\end{abstract}',
          '\\section{Introduction}',
          'SciPy is a library of numerical routines for the Python programming language that provides fundamental building blocks for modeling and solving scientific problems.',
          '\\end{document}',
        ].join('\n'),
      );
      out.push({ name: 'scipy-1.0 (article)', group: 'scipy', tex, cls: 'article' });
    }
  } else console.log('scipy-1.0: ../shared/eval is absent: skipped');
  return out;
}

interface Row {
  name: string;
  group: Case['group'];
  truth: Truth;
  base: Guess;
  full: Guess;
}

function score(rows: Row[], which: 'base' | 'full'): { title: number; authors: number; year: number; years: number } {
  const dated = rows.filter((r) => r.truth.year);
  return {
    title: rows.filter((r) => normaliseTitle(r[which].title ?? '') === normaliseTitle(r.truth.title)).length / rows.length,
    authors: rows.reduce((s, r) => s + authorF1(r.truth.authors, r[which].authors), 0) / rows.length,
    year: dated.filter((r) => r[which].year === r.truth.year).length / (dated.length || 1),
    years: dated.length,
  };
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'corpus-lens-metadata-'));
  try {
    const rows: Row[] = [];
    for (const c of cases(work)) {
      if (!installed(c.cls)) {
        console.log(`${c.name}: skipped, ${c.cls}.cls is not installed (apt-get install texlive-publishers texlive-science)`);
        continue;
      }
      let pdf: string;
      try {
        pdf = compile(c.tex, work);
      } catch (err) {
        console.log(`${c.name}: skipped, pdflatex failed (${(err as Error).message.split('\n')[0]})`);
        continue;
      }
      const bytes = new Uint8Array(readFileSync(pdf));
      const truth = await truthOf(c.tex);
      const base = infoMetadata((await pdfLayout(bytes)).info);
      const paper = (await readPdfBytes(bytes, pdf)).papers[0];
      const full: Guess = { title: paper?.title ?? null, authors: paper?.authors ?? [], year: paper?.year ?? null };
      rows.push({
        name: c.name,
        group: c.group,
        truth,
        base: { title: base.title ?? null, authors: base.authors ?? [], year: base.year ?? null },
        full,
      });
    }
    if (process.env.METADATA_BENCH_ROWS) {
      for (const r of rows.filter((r) => process.env.METADATA_BENCH_ROWS === 'all' || r.group === process.env.METADATA_BENCH_ROWS)) {
        const ok = normaliseTitle(r.full.title ?? '') === normaliseTitle(r.truth.title);
        console.log(`${r.name} [${r.group}] title ${ok ? 'ok' : `"${r.full.title}" ≠ "${r.truth.title}"`}`);
        console.log(
          `  authors F1 ${authorF1(r.truth.authors, r.full.authors).toFixed(2)}: ${JSON.stringify(r.full.authors)} vs ${JSON.stringify(r.truth.authors)}`,
        );
        console.log(`  year ${r.full.year} vs ${r.truth.year}`);
      }
    }
    const groups: Array<[string, Row[]]> = [
      ['all', rows],
      ['tuned (team-written)', rows.filter((r) => r.group === 'tuned')],
      ['held out (team-written)', rows.filter((r) => r.group === 'held-out')],
      ['held out (repo samples)', rows.filter((r) => r.group === 'samples')],
      ['held out (SciPy 1.0)', rows.filter((r) => r.group === 'scipy')],
    ];
    console.log('\nmetadata from typeset PDFs vs their LaTeX sources (title: exact after normalising case and punctuation;');
    console.log('author F1: surname + first initial, averaged per paper; year: over the sources that state one)\n');
    console.log(
      '| sources | n | title, info dict | title, reader | author F1, info dict | author F1, reader | year, info dict | year, reader |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
    for (const [label, rs] of groups) {
      if (!rs.length) continue;
      const b = score(rs, 'base');
      const f = score(rs, 'full');
      console.log(
        `| ${label} | ${rs.length} | ${pct(b.title)} | ${pct(f.title)} | ${b.authors.toFixed(2)} | ${f.authors.toFixed(2)} | ${b.years ? pct(b.year) : '–'} | ${f.years ? `${pct(f.year)} (of ${f.years})` : '–'} |`,
      );
    }
    const anon = rows.filter((r) => r.truth.authors.length && !r.full.authors.length).map((r) => r.name);
    console.log(`\npapers with printed authors the reader found none for (an anon… key): ${anon.length ? anon.join(', ') : 'none'}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
