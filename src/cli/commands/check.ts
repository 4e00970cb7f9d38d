// `corpus-lens check`: every citation of a LaTeX project or Markdown paper (or of a JSONL of claims) checked
// against the cited paper's own stored sentences (core/cite-check). A thin face: parsing, reading files, printing.
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { parseCommand } from '../options.js';
import { checkSpec } from '../spec.js';
import { CliError, outputs, writeJson, type Command, type StoreDeps } from '../command.js';
import { chatFromFlags, openDb, queryEmbedder } from '../corpus.js';
import { redactSecrets } from '../../core/redact.js';
import type { CheckContext, CitationCheck, Evidence, SiteCiteResult } from '../../core/cite-check/index.js';

const evidenceJson = (e: Evidence) => ({ sentenceIndex: e.sentenceIndex, text: e.text, page: e.page });

/** A --claims line's input, checked. */
function parseClaim(line: string, where: string): { id: unknown; text: string; cites: string[] } {
  let o: { id?: unknown; text?: unknown; cites?: unknown };
  try {
    o = JSON.parse(line);
  } catch {
    throw new CliError(`${where}: not valid JSON`);
  }
  if (typeof o?.text !== 'string') throw new CliError(`${where}: "text" must be a string`);
  if (!Array.isArray(o.cites) || !o.cites.every((c) => typeof c === 'string'))
    throw new CliError(`${where}: "cites" must be an array of paper ids or keys`);
  return { id: o.id ?? null, text: o.text, cites: o.cites as string[] };
}

/** The --claims output of one cite. */
function claimCite(c: CitationCheck) {
  const key = c.paper && c.cite !== c.paper.id ? c.cite : (c.paper?.citationKey ?? (c.paper ? null : c.cite));
  return { paper: c.paper?.id ?? null, key, verdict: c.verdict, score: c.score, evidence: c.evidence.map(evidenceJson) };
}

const where = (e: Evidence) =>
  e.page ? ` (p. ${e.page}${e.lines ? `, lines ${e.lines.start}–${e.lines.end}` : ''})` : ` (sentence ${e.sentenceIndex + 1})`;
const clip = (s: string, n = 140) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One human-readable line (or a few) for a cited key, compiler-style: file:line:col: level: message. */
function describe(file: string, line: number, col: number, r: SiteCiteResult): string[] {
  const at = `${file}:${line + 1}:${col + 1}`;
  if (r.status === 'missing-from-bib') {
    return [
      `${at}: error: ${r.key} is in no .bib of the project${r.paper ? ` (the corpus has it: "${clip(r.paper.title ?? r.paper.id, 80)}")` : ''}`,
    ];
  }
  if (r.status === 'not-in-corpus') return [`${at}: info: ${r.key} is not in the corpus — add it to check`];
  const c = r.check!;
  const title = clip(c.paper?.title ?? c.paper?.id ?? r.key, 80);
  if (c.verdict === 'supported') {
    const e = c.quote ?? c.evidence[0];
    return [`${at}: ok: ${r.key} supports it (${c.score.toFixed(2)}): "${clip(e?.text ?? '')}"${e ? where(e) : ''}`];
  }
  const out = [
    `${at}: warning: ${r.key} ("${title}") ${c.verdict === 'contradicted' ? 'contradicts' : 'does not support'} the sentence — ${c.reason}`,
  ];
  const e = c.quote ?? c.evidence[0];
  if (e) out.push(`  closest: "${clip(e.text)}"${where(e)}`);
  for (const a of r.alternatives ?? []) {
    out.push(
      `  cite instead/also: ${a.key ?? a.paper.id}${a.inBib ? '' : ' (not in the .bib)'} ("${clip(a.paper.title ?? a.paper.id, 60)}", ${a.score.toFixed(2)}): "${clip(a.evidence[0]?.text ?? '')}"`,
    );
  }
  return out;
}

export function createCheckCommand(deps: StoreDeps = {}): Command {
  return {
    async run(args) {
      const env = deps.env ?? process.env;
      const { out, err } = outputs(deps);
      const parsed = parseCommand(checkSpec, args);
      if ('help' in parsed) {
        out(parsed.help);
        return 0;
      }
      const { values, positionals } = parsed;
      if (values.claims && positionals.length) throw new CliError('give either FILE… or --claims FILE.jsonl, not both', 2);
      if (values.claims && !values.json) throw new CliError('--claims prints JSON lines: add --json', 2);
      if (!values.claims && !positionals.length) throw new CliError('give the paper to check (FILE…) or --claims FILE.jsonl', 2);
      const { threshold, evidence, commands, timeout: timeoutMs } = values;

      // Inputs are read before the corpus opens: a bad file is reported without touching it.
      let claims: { id: unknown; text: string; cites: string[] }[] = [];
      if (values.claims) {
        let raw: string;
        try {
          raw = await readFile(values.claims, 'utf8');
        } catch (e) {
          throw new CliError(`cannot read ${values.claims}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
        claims = raw
          .split(/\r?\n/)
          .map((l, i) => ({ l, i }))
          .filter(({ l }) => l.trim())
          .map(({ l, i }) => parseClaim(l, `${values.claims}:${i + 1}`));
      }
      const { findProjectCitations, formatOfPath, checkCitation, checkDocument, PaperCatalog } =
        await import('../../core/cite-check/index.js');
      const { BibIndex } = await import('../../core/bib/bib-index.js');
      const projects = positionals.map((p) => {
        try {
          readFileSync(p);
        } catch (e) {
          throw new CliError(`cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
        return findProjectCitations(p, { commands });
      });
      const extraBib: string[] = [];
      for (const b of values.bib ?? []) {
        try {
          extraBib.push(readFileSync(b, 'utf8'));
        } catch (e) {
          throw new CliError(`cannot read ${b}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
        }
      }

      const store = await openDb(values.db, values.schema, env);
      try {
        const meta = await store.meta();
        if (!meta) throw new CliError(`the corpus at ${redactSecrets(values.db ?? '')} is empty (run corpus-lens ingest first)`);
        const embedder = await queryEmbedder(deps, env, values, meta);
        const chat = await chatFromFlags(values, env, timeoutMs);
        const options = { threshold, evidence };

        if (values.claims) {
          const bib = extraBib.length ? await BibIndex.read(extraBib.join('\n')) : null;
          const ctx: CheckContext = { store, embedder, chat, catalog: await PaperCatalog.load(store, bib) };
          for (const c of claims) {
            const cites = [];
            for (const cite of c.cites) cites.push(claimCite(await checkCitation(ctx, { sentence: c.text, cite }, options)));
            writeJson(out, { id: c.id, cites });
          }
          return 0;
        }

        for (const project of projects) {
          for (const w of project.warnings) err(`corpus-lens: warning: ${w}\n`);
          const bibTexts = [...project.bibFiles.map((f) => readFileSync(f, 'utf8')), ...extraBib];
          const hasBib = bibTexts.length > 0;
          if (!hasBib)
            err(`corpus-lens: warning: ${project.files[0]} names no .bib (and no --bib): keys are not checked against a bibliography\n`);
          const bib = hasBib ? await BibIndex.read(bibTexts.join('\n')) : null;
          const ctx: CheckContext = { store, embedder, chat, catalog: await PaperCatalog.load(store, bib) };
          for (const file of project.files) {
            const text = readFileSync(file, 'utf8');
            const report = await checkDocument(ctx, { text, format: formatOfPath(project.files[0]), file, bib }, { ...options, commands });
            for (const { site, cites } of report.sites) {
              for (const r of cites) {
                if (!values.json) {
                  out(describe(file, site.line, site.character, r).join('\n') + '\n');
                  continue;
                }
                writeJson(out, {
                  file,
                  line: site.line + 1,
                  column: site.character + 1,
                  command: site.command,
                  key: r.key,
                  sentence: site.sentence.text,
                  status: r.status,
                  paper: r.paper?.id ?? null,
                  verdict: r.check?.verdict ?? (r.status === 'not-in-corpus' ? 'not-in-corpus' : null),
                  score: r.check?.score ?? null,
                  evidence: (r.check?.evidence ?? []).map(evidenceJson),
                  alternatives: (r.alternatives ?? []).map((a) => ({
                    paper: a.paper.id,
                    key: a.key,
                    inBib: a.inBib,
                    score: a.score,
                    evidence: a.evidence.slice(0, 1).map(evidenceJson),
                  })),
                });
              }
            }
          }
        }
        return 0;
      } finally {
        await store.close();
      }
    },
  };
}

export const checkCommand = createCheckCommand();
