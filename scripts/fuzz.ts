// Fuzz and fault injection for the hardening rules (issue 19): random inputs against the BibTeX writer, the
// redaction, the text decoder, the HTML depth bound and the query-text check, a flaky loopback embedding endpoint,
// and the CLI on a folder of random bad files and random query arguments.
//
//   npm run fuzz -- [--seconds 60] [--seed N]      (test/hardening/fuzz.test.ts runs a short mode, fixed seed)
//
// Bounds: a time budget (default 60 s; each phase gets a share and stops at it), a seeded PRNG (the seed is printed
// and in every failure, so a run can be replayed), loopback only (the stand-in endpoint listens on 127.0.0.1 and is
// closed at the end), temporary folders removed at the end. A failure throws with the seed and the input.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readdirSync, mkdirSync, copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatBibtexEntry, loadBibtexParser } from '../src/core/bib/index.js';
import { redactSecrets } from '../src/core/redact.js';
import { mulberry32 } from '../src/core/random.js';
import { decodeText, NotTextError } from '../src/core/ingest/decode.js';
import { limitNesting, readArxivHtmlText } from '../src/core/ingest/html.js';
import { checkQueryText, QueryTextError } from '../src/core/retrieve/index.js';
import { OpenAIEmbedder } from '../src/core/embed/openai.js';
import { EmbeddingError } from '../src/core/embed/errors.js';

export interface FuzzOptions {
  seconds?: number;
  seed?: number;
  /** Also run the CLI phase (needs dist/cli.js). */
  cli?: boolean;
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  cases: Record<string, number>;
}

const SPECIAL = [
  '{',
  '}',
  '\\',
  '@',
  '%',
  '#',
  '~',
  '^',
  '_',
  '$',
  '&',
  '"',
  "'",
  ',',
  '=',
  '\n',
  '\r',
  '\t',
  '\u0000',
  ' and ',
  'é',
  'ß',
  '—',
  '😀',
  '\u2028',
  '<',
  '>',
  '`',
  '}, note = {',
  '\\input{/etc/passwd}',
  '@misc{x,',
  'http://',
  '%7B',
];

class Gen {
  constructor(readonly r: () => number) {}
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  word(): string {
    const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    let s = '';
    for (let i = 1 + this.int(8); i > 0; i--) s += letters[this.int(letters.length)];
    return s;
  }
  /** A string mixing words, BibTeX/TeX specials, control characters and non-ASCII. */
  nasty(maxParts = 12): string {
    let s = '';
    for (let i = this.int(maxParts) + 1; i > 0; i--) s += this.r() < 0.5 ? this.word() + ' ' : this.pick(SPECIAL);
    return s;
  }
  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}

/** Runs `body` until its share of the budget is spent; returns how many cases ran. */
async function phase(name: string, until: number, seed: number, body: (i: number) => unknown | Promise<unknown>): Promise<number> {
  let i = 0;
  do {
    try {
      await body(i);
    } catch (err) {
      throw new Error(`fuzz phase ${name}, seed ${seed}, case ${i}: ${(err as Error).message}`, { cause: err });
    }
    i++;
  } while (Date.now() < until);
  return i;
}

const oneLine = (s: string) =>
  s
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzReport> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const log = options.log ?? (() => undefined);
  const g = new Gen(mulberry32(seed));
  const budget = (options.seconds ?? 60) * 1000;
  const start = Date.now();
  const share = (fraction: number) => Math.min(start + budget, Date.now() + budget * fraction);
  const cases: Record<string, number> = {};
  log(`fuzz: seed ${seed}, ${budget / 1000} s`);

  const { parse } = await loadBibtexParser();
  cases.bibtex = await phase('bibtex', share(0.12), seed, () => {
    const title = g.nasty();
    const entry = formatBibtexEntry(
      {
        title,
        authors: [g.nasty(4), g.nasty(4)],
        year: 2000 + g.int(30),
        venue: g.nasty(6),
        doi: g.r() < 0.5 ? `10.${1000 + g.int(9000)}/${g.nasty(3)}` : g.nasty(),
        arxivId: g.nasty(3),
        url: `https://x.org/${g.nasty()}`,
      },
      g.nasty(3),
    );
    const lib = parse(entry, { sentenceCase: false, caseProtection: false });
    assert.equal(lib.errors.length, 0, entry);
    assert.equal(lib.entries.length, 1, entry);
    for (const f of Object.keys(lib.entries[0].fields))
      assert.ok(['title', 'author', 'year', 'journal', 'doi', 'eprint', 'archiveprefix', 'url'].includes(f), `${f} in ${entry}`);
    if (oneLine(title)) assert.equal(lib.entries[0].fields.title, oneLine(title), entry);
  });

  cases.redact = await phase('redact', share(0.06), seed, () => {
    const secret = `Zq${g.word()}${g.word()}9`;
    const enc = encodeURIComponent(secret + g.pick(['', '@', ':', '/', '#', '%']));
    const forms = [
      `postgres://${g.word()}:${enc}@h${g.int(9)}.example:5432/db`,
      `supabase:https://p.supabase.co/rest/v1/?apikey=${secret}`,
      `https://${g.word()}:${enc}@api.example/v1`,
      `https://api.example/v1?${g.pick(['key', 'token', 'access_token', 'api_key', 'apikey', 'password'])}=${secret}&m=${g.word()}`,
    ];
    const text = `${g.nasty(3)} ${g.pick(forms)}${g.pick(['', ':', '.', ')', ' (x)'])} ${g.nasty(3)}`;
    const out = redactSecrets(text);
    assert.ok(!out.includes(secret) && !out.includes(encodeURIComponent(secret)), `${text} → ${out}`);
  });

  cases.decode = await phase('decode', share(0.1), seed, () => {
    const kind = g.int(4);
    const text = `\\documentclass{article} ${g.nasty(20)}`;
    const bytes =
      kind === 0
        ? g.bytes(1 + g.int(3000))
        : kind === 1
          ? Buffer.from(text, 'utf16le')
          : kind === 2
            ? Buffer.from(text.replace(/[^\u0000-\u00ff]/g, '?'), 'latin1')
            : Buffer.from(text, 'utf8');
    try {
      const d = decodeText(bytes, 'LaTeX');
      assert.ok(!d.text.includes('\u0000'), 'NUL left in decoded text');
    } catch (err) {
      assert.ok(err instanceof NotTextError, `${(err as Error).name}: ${(err as Error).message}`);
    }
  });

  cases.html = await phase('html', share(0.1), seed, () => {
    const depth = g.int(3000);
    const tags = Array.from({ length: depth }, () => g.pick(['div', 'span', 'section', 'p', 'li', 'b', 'article']));
    const html = `<html><body>${tags.map((t) => `<${t}>`).join('')}<p>${g.nasty(6)}</p>${
      g.r() < 0.7
        ? [...tags]
            .reverse()
            .map((t) => `</${t}>`)
            .join('')
        : ''
    }</body></html>`;
    const limited = limitNesting(html);
    assert.ok(limited.html.length <= html.length + depth);
    const read = readArxivHtmlText(html, 'fuzz.html');
    assert.equal(read.papers.length, 1);
  });

  cases.query = await phase('query-text', share(0.04), seed, () => {
    const text = g.r() < 0.3 ? g.pick(['', ' ', '...', '$$', '\u0000', '—']) : g.nasty(g.int(40));
    try {
      checkQueryText(text);
      assert.ok(/[\p{L}\p{N}]/u.test(text));
    } catch (err) {
      assert.ok(err instanceof QueryTextError, (err as Error).message);
    }
  });

  // A flaky endpoint: each request gets one of the faults below. Every embed() ends by its deadline, with vectors or
  // an EmbeddingError.
  const open = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      open.add(res);
      res.on('close', () => open.delete(res));
      const n = (JSON.parse(body || '{}').input ?? []).length as number;
      const ok = () => JSON.stringify({ data: Array.from({ length: n }, (_, index) => ({ index, embedding: [1, 0, 0, 0] })), model: 'm' });
      switch (g.int(6)) {
        case 0:
          return res.writeHead(200, { 'content-type': 'application/json' }).end(ok());
        case 1:
          return res.writeHead(500).end('{"error":{"message":"boom"}}');
        case 2:
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [garbage');
        case 3: {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{');
          const t = setInterval(() => res.write(' '), 100);
          return res.on('close', () => clearInterval(t));
        }
        case 4:
          return req.socket.destroy();
        default:
          return void setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(ok()), 50 + g.int(200));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  try {
    const embedder = new OpenAIEmbedder({
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: 'm',
      dimensions: 4,
      timeoutMs: 300,
      deadlineMs: 800,
      maxRetries: 3,
      retryBaseMs: 10,
      retryMaxMs: 50,
    });
    cases.endpoint = await phase('endpoint', share(0.2), seed, async () => {
      const t0 = Date.now();
      try {
        const v = await embedder.embed([g.word(), g.word()]);
        assert.equal(v.length, 2);
      } catch (err) {
        assert.ok(err instanceof EmbeddingError, `${(err as Error).name}: ${(err as Error).message}`);
      }
      assert.ok(Date.now() - t0 < 800 + 1500, `embed took ${Date.now() - t0} ms with an 800 ms deadline`);
    });
  } finally {
    for (const r of open) r.destroy();
    server.close();
  }

  if (options.cli !== false) {
    const cli = resolve(__dirname, '..', 'dist', 'cli.js');
    const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-fuzz-'));
    try {
      const papers = join(dir, 'papers');
      mkdirSync(papers);
      const samples = resolve(__dirname, '..', 'samples', 'corpus');
      const goodName = readdirSync(samples)
        .filter((f) => f.endsWith('.tex'))
        .sort()[0];
      copyFileSync(join(samples, goodName), join(papers, 'good.tex'));
      for (let i = 0; i < 6; i++) {
        const ext = g.pick(['.tex', '.md', '.html', '.bib']);
        const content =
          g.r() < 0.5
            ? g.bytes(200 + g.int(2000))
            : Buffer.from(`${g.pick(['\\documentclass{article}', '# T', '<html>', '@article{k,'])}\n${g.nasty(30)}`);
        writeFileSync(join(papers, `bad${i}${ext}`), content);
      }
      const db = join(dir, 'corpus');
      const r = spawnSync(process.execPath, [cli, 'ingest', '--db', db, '--json', papers], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, `seed ${seed}: ingest of random bad files failed: ${r.stderr}`);
      const summary = JSON.parse(r.stdout);
      assert.ok(summary.papers >= 1, `seed ${seed}: the good file was not indexed: ${r.stdout}`);
      cases.cli = await phase('cli', share(0.95), seed, () => {
        const args = [
          'query',
          '--db',
          db,
          ...g.pick([
            [],
            ['--k', String(g.int(40) - 10)],
            ['--offset', g.pick(['-1', '99999999999', 'x', '2'])],
            ['--mode', g.pick(['keyword', 'hybrid', 'vector', 'nope'])],
            ['--threshold', g.pick(['2', '-0.5', 'abc', '0.1'])],
          ]),
          argv(g.nasty(5)),
        ];
        const q = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });
        assert.ok(q.status === 0 || q.status === 1 || q.status === 2, `exit ${q.status} for ${JSON.stringify(args)}: ${q.stderr}`);
        if (q.status === 0) JSON.parse(q.stdout);
        else {
          assert.equal(q.stderr.trim().split('\n').length, 1, `${JSON.stringify(args)}: ${q.stderr}`);
          assert.doesNotMatch(q.stderr, /\[object Object\]|\n\s+at |ambiguous/, JSON.stringify(args));
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  log(`fuzz: ${JSON.stringify(cases)} in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return { seed, cases };
}

/** What a shell can pass as one argument: any text but NUL, which no OS lets through argv. */
function argv(text: string): string {
  return text.replace(/\0/g, '');
}

if (require.main === module) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  runFuzz({ seconds: arg('seconds'), seed: arg('seed'), log: (l) => console.log(l) }).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
