// Local stand-ins for arXiv, Semantic Scholar and OpenAlex, speaking their real wire formats, plus an open-access
// PDF host. Limits: loopback only (127.0.0.1, ephemeral ports); three servers (arXiv / S2 / OpenAlex+PDF) so each is
// its own host for the client's spacing; records are generated from a small registry the test fills; search
// matches title words only; at most 100 entries per Atom page; faults are scripted per path (status + Retry-After,
// a cut body, silence); PDF bodies honour `Range: bytes=N-` only. The arXiv stand-in records every request's start
// and flags a start closer than `arxivIntervalMs` to the previous one, or two requests at once.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Kind = 'eprint-tar' | 'eprint-tex' | 'html' | 'oa-pdf' | 'metadata' | 'none';

export interface StandinRecord {
  kind: Kind;
  title: string;
  authors: string[];
  year: number;
  doi?: string;
  arxivId?: string;
  /** License URL (arXiv) or short name (OpenAlex / S2). */
  license?: string;
  /** Words that make this record's text its own (for retrieval checks). */
  topic: string;
}

export type Fault = { status: number; retryAfter?: string } | { cut: number } | { silent: true };

export interface Standins {
  arxivUrl: string;
  arxivApiUrl: string;
  s2Url: string;
  openalexUrl: string;
  records: StandinRecord[];
  add(r: StandinRecord): void;
  /** Faults for a path (consumed one per request). */
  fault(path: string, ...f: Fault[]): void;
  hits: Map<string, number>;
  /** Every request: path, query and the headers a polite client sends. */
  requests: { path: string; query: URLSearchParams; userAgent: string; apiKey: string | null }[];
  arxivStarts: number[];
  arxivViolations: string[];
  setPdf(bytes: Buffer): void;
  /** The spacing the arXiv stand-in checks (default 3 000 ms, arXiv's rule). */
  arxivIntervalMs: number;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function abstractOf(r: StandinRecord): string {
  return `We study ${r.topic} in depth. Our analysis of ${r.topic} shows a consistent effect across settings.`;
}

/** The sentences of a record's full text (each names its topic). */
export function bodyOf(r: StandinRecord, part: string): string[] {
  return [
    `The ${part} of this work on ${r.topic} follows a careful design.`,
    `Results on ${r.topic} were checked by two independent readers.`,
  ];
}

function atomEntry(r: StandinRecord): string {
  return `<entry>
    <id>http://arxiv.org/abs/${r.arxivId}v2</id>
    <updated>${r.year}-02-01T00:00:00Z</updated>
    <published>${r.year}-01-15T00:00:00Z</published>
    <title>${esc(r.title)}</title>
    <summary>  ${esc(abstractOf(r))}
    </summary>
    ${r.authors.map((a) => `<author><name>${esc(a)}</name><arxiv:affiliation>Somewhere</arxiv:affiliation></author>`).join('\n    ')}
    ${r.doi ? `<arxiv:doi>${r.doi}</arxiv:doi>` : ''}
    ${r.license ? `<arxiv:license>${r.license}</arxiv:license>` : ''}
    <link href="http://arxiv.org/abs/${r.arxivId}v2" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/${r.arxivId}v2" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`;
}

export function atomFeed(entries: StandinRecord[], total: number, start: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <id>https://arxiv.org/api/standin</id>
  <title>arXiv Query: stand-in</title>
  <updated>2026-01-01T00:00:00Z</updated>
  <link href="https://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <opensearch:itemsPerPage>${entries.length}</opensearch:itemsPerPage>
  <opensearch:totalResults>${total}</opensearch:totalResults>
  <opensearch:startIndex>${start}</opensearch:startIndex>
  ${entries.map(atomEntry).join('\n  ')}
</feed>`;
}

function latexMain(r: StandinRecord, withInputs: boolean): string {
  const sec = (name: string) => `\\section{${name}}\n${bodyOf(r, name.toLowerCase()).join(' ')}\n`;
  return `\\documentclass{article}
\\title{${r.title}}
\\author{${r.authors.join(' \\and ')}}
\\begin{document}
\\maketitle
\\begin{abstract}
${abstractOf(r)}
\\end{abstract}
${withInputs ? '\\input{sections/intro}\n\\input{method.tex}' : sec('Introduction') + sec('Method')}
\\section{References}
Nothing here should be read.
\\end{document}
`;
}

/** A gzipped tar (built with node-tar) of a main file that \inputs two others, one in a subfolder. */
async function eprintTar(r: StandinRecord): Promise<Buffer> {
  const tar = await import('tar');
  const dir = mkdtempSync(join(tmpdir(), 'standin-eprint-'));
  try {
    mkdirSync(join(dir, 'sections'));
    writeFileSync(join(dir, 'ms.tex'), latexMain(r, true));
    writeFileSync(join(dir, 'sections', 'intro.tex'), `\\section{Introduction}\n${bodyOf(r, 'introduction').join(' ')}\n`);
    writeFileSync(join(dir, 'method.tex'), `\\section{Method}\n${bodyOf(r, 'method').join(' ')}\n`);
    writeFileSync(join(dir, 'figure.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(join(dir, 'eprint.tar.gz'), Buffer.alloc(0));
    await tar.c({ gzip: true, cwd: dir, file: join(dir, 'eprint.tar.gz'), portable: true }, [
      'ms.tex',
      'sections',
      'method.tex',
      'figure.png',
    ]);
    return readFileSync(join(dir, 'eprint.tar.gz'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function arxivHtml(r: StandinRecord): string {
  const p = (part: string) =>
    bodyOf(r, part)
      .map((s) => `<p class="ltx_p">${esc(s)}</p>`)
      .join('');
  return `<!DOCTYPE html><html><head><title>${esc(r.title)}</title></head><body><article class="ltx_document">
<h1 class="ltx_title ltx_title_document">${esc(r.title)}</h1>
<div class="ltx_authors"><span class="ltx_creator ltx_role_author"><span class="ltx_personname">${esc(r.authors[0] ?? '')}</span></span></div>
<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6><p class="ltx_p">${esc(abstractOf(r))}</p></div>
<section class="ltx_section"><h2 class="ltx_title ltx_title_section"><span class="ltx_tag ltx_tag_section">1 </span>Introduction</h2><div class="ltx_para">${p('introduction')}</div></section>
<section class="ltx_section"><h2 class="ltx_title ltx_title_section"><span class="ltx_tag ltx_tag_section">2 </span>Method</h2><div class="ltx_para">${p('method')}</div></section>
</article></body></html>`;
}

function invertedIndex(text: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  text.split(' ').forEach((w, i) => (out[w] ??= []).push(i));
  return out;
}

export async function startStandins(): Promise<Standins> {
  const records: StandinRecord[] = [];
  const faults = new Map<string, Fault[]>();
  const hits = new Map<string, number>();
  const requests: Standins['requests'] = [];
  const arxivStarts: number[] = [];
  const arxivViolations: string[] = [];
  let pdf: Buffer = Buffer.alloc(0);
  let arxivActive = 0;
  const state = { arxivIntervalMs: 3000 };
  const byArxiv = (id: string) => records.find((r) => r.arxivId === id);
  const byDoi = (doi: string) => records.find((r) => r.doi && r.doi.toLowerCase() === doi.toLowerCase());
  const matches = (q: string) => {
    const words = q
      .toLowerCase()
      .replace(/\b(all|ti|abs):/g, ' ')
      .replace(/\band\b|[()"]/g, ' ')
      .split(/\s+/)
      .filter((w) => w.length > 2 && !/^submitteddate/.test(w) && !/^\[|^\d{12}/.test(w));
    return records.filter((r) => r.kind !== 'none' && words.every((w) => `${r.title} ${r.topic}`.toLowerCase().includes(w)));
  };

  /** Applies a scripted fault; true when the request was answered (or left hanging) by it. */
  const applyFault = (path: string, res: ServerResponse, body: () => Buffer): boolean => {
    const f = faults.get(path)?.shift();
    if (!f) return false;
    if ('status' in f) res.writeHead(f.status, f.retryAfter ? { 'retry-after': f.retryAfter } : {}).end('fault');
    else if ('cut' in f) {
      const b = body();
      res.writeHead(200, { 'content-length': String(b.length), 'accept-ranges': 'bytes' });
      res.write(b.subarray(0, f.cut));
      setTimeout(() => res.destroy(), 20);
    }
    return true; // silent: never answered
  };

  const serve = (
    handler: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void,
    onStart?: () => void,
    onEnd?: () => void,
  ) =>
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
      requests.push({
        path: url.pathname,
        query: url.searchParams,
        userAgent: String(req.headers['user-agent'] ?? ''),
        apiKey: (req.headers['x-api-key'] as string | undefined) ?? null,
      });
      onStart?.();
      res.on('close', () => onEnd?.());
      Promise.resolve(handler(req, res, url)).catch((e) => res.writeHead(500).end(String(e)));
    });

  const arxiv = serve(
    async (_req, res, url) => {
      const p = url.pathname;
      if (p === '/api/query') {
        const idList = url.searchParams.get('id_list');
        const start = Number(url.searchParams.get('start') ?? 0);
        const max = Math.min(100, Number(url.searchParams.get('max_results') ?? 10));
        const found = idList
          ? idList
              .split(',')
              .map((id) => byArxiv(id.replace(/v\d+$/, '')))
              .filter((r): r is StandinRecord => !!r && r.kind !== 'none')
          : matches(url.searchParams.get('search_query') ?? '');
        if (applyFault(p, res, () => Buffer.from(''))) return;
        res
          .writeHead(200, { 'content-type': 'application/atom+xml; charset=utf-8' })
          .end(atomFeed(found.slice(start, start + max), found.length, start));
        return;
      }
      const m = /^\/(e-print|html)\/(.+)$/.exec(p);
      const r = m ? byArxiv(m[2]) : undefined;
      if (m && r && m[1] === 'e-print' && (r.kind === 'eprint-tar' || r.kind === 'eprint-tex')) {
        const body = r.kind === 'eprint-tar' ? await eprintTar(r) : gzipSync(latexMain(r, false));
        if (applyFault(p, res, () => body)) return;
        res.writeHead(200, { 'content-type': 'application/x-eprint-tar', 'content-length': String(body.length) }).end(body);
        return;
      }
      if (m && r && m[1] === 'html' && r.kind === 'html') {
        if (applyFault(p, res, () => Buffer.from(arxivHtml(r)))) return;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(arxivHtml(r));
        return;
      }
      res.writeHead(404).end('not found');
    },
    () => {
      const now = Date.now();
      const prev = arxivStarts[arxivStarts.length - 1];
      if (prev !== undefined && now - prev < state.arxivIntervalMs - 5) arxivViolations.push(`${now - prev} ms between two requests`);
      if (arxivActive > 0) arxivViolations.push('two requests at once');
      arxivActive++;
      arxivStarts.push(now);
    },
    () => arxivActive--,
  );

  const work = (r: StandinRecord, base: string) => ({
    id: `https://openalex.org/W${Math.abs(hash(r.title))}`,
    doi: r.doi ? `https://doi.org/${r.doi}` : null,
    title: r.title,
    display_name: r.title,
    publication_year: r.year,
    authorships: r.authors.map((a) => ({ author: { display_name: a } })),
    primary_location: { landing_page_url: r.doi ? `https://doi.org/${r.doi}` : null, source: { display_name: 'Journal of Stand-ins' } },
    best_oa_location:
      r.kind === 'oa-pdf'
        ? { pdf_url: `${base}/pdf/${encodeURIComponent(r.doi ?? r.title)}.pdf`, license: r.license ?? 'cc-by', landing_page_url: null }
        : null,
    locations: r.arxivId ? [{ landing_page_url: `https://arxiv.org/abs/${r.arxivId}`, pdf_url: `https://arxiv.org/pdf/${r.arxivId}` }] : [],
    abstract_inverted_index: r.kind === 'none' ? null : invertedIndex(abstractOf(r)),
  });

  let openalexBase = '';
  const openalex = serve((req, res, url) => {
    const p = url.pathname;
    if (p.startsWith('/pdf/')) {
      if (applyFault(p, res, () => pdf)) return;
      const m = /bytes=(\d+)-/.exec(String(req.headers.range ?? ''));
      const start = m ? Number(m[1]) : 0;
      const body = pdf.subarray(start);
      const head: Record<string, string> = {
        'content-type': 'application/pdf',
        'content-length': String(body.length),
        'accept-ranges': 'bytes',
      };
      if (m) head['content-range'] = `bytes ${start}-${pdf.length - 1}/${pdf.length}`;
      res.writeHead(m ? 206 : 200, head).end(body);
      return;
    }
    if (applyFault(p, res, () => Buffer.from(''))) return;
    const doi = /^\/works\/doi:(.+)$/.exec(p);
    if (doi) {
      const r = byDoi(decodeURIComponent(doi[1]));
      if (!r || r.kind === 'none') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(work(r, openalexBase)));
      return;
    }
    if (p === '/works') {
      const q = url.searchParams.get('search') ?? '';
      const per = Number(url.searchParams.get('per-page') ?? 25);
      const page = Number(url.searchParams.get('page') ?? 1);
      const exact = records.filter((r) => r.kind !== 'none' && r.title.toLowerCase() === q.toLowerCase());
      const found = exact.length ? exact : matches(q);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          meta: { count: found.length, page, per_page: per },
          results: found.slice((page - 1) * per, page * per).map((r) => work(r, openalexBase)),
        }),
      );
      return;
    }
    res.writeHead(404).end();
  });

  const s2 = serve((_req, res, url) => {
    const p = url.pathname;
    if (applyFault(p, res, () => Buffer.from(''))) return;
    const paper = (r: StandinRecord) => ({
      paperId: String(Math.abs(hash(r.title))),
      title: r.title,
      authors: r.authors.map((name) => ({ authorId: null, name })),
      year: r.year,
      venue: 'Stand-in Conference',
      externalIds: { ...(r.doi ? { DOI: r.doi } : {}), ...(r.arxivId ? { ArXiv: r.arxivId } : {}) },
      abstract: abstractOf(r),
      url: `https://www.semanticscholar.org/paper/${Math.abs(hash(r.title))}`,
      openAccessPdf:
        r.kind === 'oa-pdf'
          ? { url: `${openalexBase}/pdf/${encodeURIComponent(r.doi ?? r.title)}.pdf`, status: 'GREEN', license: r.license ?? 'CCBY' }
          : null,
    });
    if (p === '/graph/v1/paper/search') {
      const found = matches(url.searchParams.get('query') ?? '');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 10);
      const data = found.slice(offset, offset + limit).map(paper);
      const next = offset + limit < found.length ? offset + limit : undefined;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ total: found.length, offset, ...(next !== undefined ? { next } : {}), data }));
      return;
    }
    const one = /^\/graph\/v1\/paper\/(DOI|ARXIV):(.+)$/.exec(decodeURIComponent(p));
    if (one) {
      const r = one[1] === 'DOI' ? byDoi(one[2]) : byArxiv(one[2]);
      if (!r || r.kind === 'none')
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Paper not found"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(paper(r)));
      return;
    }
    res.writeHead(404).end();
  });

  const listen = (s: Server) =>
    new Promise<string>((resolve) =>
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        resolve(`http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`);
      }),
    );
  const [arxivUrl, openalexUrl, s2Base] = [await listen(arxiv), await listen(openalex), await listen(s2)];
  openalexBase = openalexUrl;
  return {
    arxivUrl,
    arxivApiUrl: `${arxivUrl}/api/query`,
    s2Url: `${s2Base}/graph/v1`,
    openalexUrl,
    records,
    add: (r) => records.push(r),
    fault: (path, ...f) => faults.set(path, [...(faults.get(path) ?? []), ...f]),
    hits,
    requests,
    arxivStarts,
    arxivViolations,
    setPdf: (b) => (pdf = b),
    get arxivIntervalMs() {
      return state.arxivIntervalMs;
    },
    set arxivIntervalMs(ms: number) {
      state.arxivIntervalMs = ms;
    },
    close: async () => {
      for (const s of [arxiv, openalex, s2]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
