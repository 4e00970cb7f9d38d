/*
 * The keyword ranking of SQL `bm25_sentences` (ranking.ts), computed in memory for the embedded corpus.
 *
 * Why: PGlite's WASM executor spends ~10 µs on every row it moves, and the keyword half of a hybrid lookup moves
 * thousands (candidates, their term frequencies, their sections'): ~17 ms of the hybrid's ~24 ms at 100k sentences,
 * against a 20 ms target. Profiled and rewritten in SQL first (docs/benchmarks.md); a postings table in SQL gave
 * the same ranking 2× slower. Here the same postings sit in typed arrays, read once from the corpus (its stored
 * tsvectors, so PostgreSQL's parser and stemmer stay the only ones), and a ranking takes ~2 ms.
 *
 * The SQL stays the reference: every rule below is its rule (candidate budget, BM25 constants, the two stages, the
 * section score), with its constants imported from ranking.ts, and `test/integration/keyword-index.test.ts` checks
 * that both give the same ranking. Only the store that owns the corpus (PGlite: one process, one writer) uses it,
 * and only while no write has happened since it was read.
 */
import { BM25_B, BM25_K1, BM25_SECTION_WEIGHT, CANDIDATE_BUDGET, COMMON_TERM_SHARE, RERANK_FACTOR, RERANK_MIN } from './ranking.js';
import type { Row, SqlDriver } from '../driver.js';

/**
 * Rows read per statement while loading: PGlite runs one statement at a time, and a lookup waits for the one under
 * way. A section holds ~10 sentences' lexemes, so it gets a tenth of a sentence chunk. Measured at 100k (vector
 * lookups back to back during a load): 2,000 / 200 rows, lookups p50 46 ms, p95 64 ms, load 4.3 s;
 * 500 / 50, p50 12.8 ms, p95 20.9 ms (idle: 8.5 / 20.4), load 5.9 s; 200 / 20, 8.9 / 13.0 ms, load 6.1 s.
 */
const SENTENCE_CHUNK = 500;
const SECTION_CHUNK = 50;

/** Postings of one kind of document (sentences or sections) in CSR form: term t's are [start[t], start[t + 1]). */
interface Postings {
  start: Int32Array;
  doc: Int32Array;
  tf: Uint16Array;
}

/** The lexemes of a stored tsvector's text form (`'word':1,4 'other':2`) with their position counts. */
export function parseTsvector(text: string, each: (lexeme: string, tf: number) => void): void {
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text[i] !== "'") {
      i++;
      continue;
    }
    // tsvectorout doubles ' and \ inside a lexeme.
    let lexeme = '';
    i++;
    for (; i < n; i++) {
      const c = text[i];
      if (c === '\\' || (c === "'" && text[i + 1] === "'")) lexeme += text[++i];
      else if (c === "'") break;
      else lexeme += c;
    }
    i++;
    let tf = 0;
    if (text[i] === ':') {
      tf = 1;
      for (i++; i < n && text[i] !== ' '; i++) if (text[i] === ',') tf++;
    }
    each(lexeme, tf);
  }
}

/** Growable (term, doc, tf) triples, turned into Postings once every document is read. */
class PostingsBuilder {
  private term: Int32Array;
  private doc: Int32Array;
  private tf: Uint16Array;
  private size = 0;

  /** `expected`: how many postings the corpus's totals announce (fts_totals), so that none is allocated twice. */
  constructor(expected: number) {
    const n = Math.max(1024, expected);
    this.term = new Int32Array(n);
    this.doc = new Int32Array(n);
    this.tf = new Uint16Array(n);
  }

  add(term: number, doc: number, tf: number): void {
    if (this.size === this.term.length) {
      const grow = <T extends Int32Array | Uint16Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.term = grow(this.term);
      this.doc = grow(this.doc);
      this.tf = grow(this.tf);
    }
    this.term[this.size] = term;
    this.doc[this.size] = doc;
    this.tf[this.size] = Math.min(tf, 0xffff);
    this.size++;
  }

  /** Counting sort by term; documents keep the order they were added in. */
  build(terms: number): Postings {
    const start = new Int32Array(terms + 1);
    for (let k = 0; k < this.size; k++) start[this.term[k] + 1]++;
    for (let t = 0; t < terms; t++) start[t + 1] += start[t];
    const at = start.slice(0, terms);
    const doc = new Int32Array(this.size);
    const tf = new Uint16Array(this.size);
    for (let k = 0; k < this.size; k++) {
      const j = at[this.term[k]]++;
      doc[j] = this.doc[k];
      tf[j] = this.tf[k];
    }
    return { start, doc, tf };
  }
}

/**
 * Reads every row of `sql`, a query paged by its key (its parameters: the last row's key, `first` for the first
 * page), `chunk` rows a statement, handing each to `each`. False when `current` turned false between statements.
 */
async function readPaged(
  driver: SqlDriver,
  sql: string,
  page: { first: unknown[]; keyOf: (row: Row) => unknown[]; chunk: number; current: () => boolean },
  each: (row: Row) => void,
): Promise<boolean> {
  for (let key = page.first; ;) {
    const { rows } = await driver.query(`${sql} LIMIT ${page.chunk}`, key);
    if (!page.current()) return false;
    rows.forEach(each);
    if (rows.length < page.chunk) return true;
    key = page.keyOf(rows[rows.length - 1]);
  }
}

/** fts_totals' row: what bm25_sentences reads for N and the average lengths. */
export interface KeywordTotals {
  documents: number;
  lexemes: number;
  sections: number;
  sectionLexemes: number;
}

/**
 * Postings longer than this many times the documents to score are binary-searched (~log2 of their length steps a
 * document) rather than walked (one step a posting): 16 ≈ log2 of 65k postings.
 */
const SEARCH_FACTOR = 16;

/** Where `doc` is in a term's postings doc[from, to) (ascending: documents are added in row order), or -1. */
function find(docs: Int32Array, from: number, to: number, doc: number): number {
  let [lo, hi] = [from, to - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < doc) lo = mid + 1;
    else if (docs[mid] > doc) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** Code-point order of two lexemes: the C collation that orders bm25_sentences' terms in PGlite. */
const byCodePoint = (a: string, b: string): number => {
  if (a === b) return 0;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d) return d;
  }
  return x.length - y.length;
};

export class KeywordIndex {
  private readonly n: number;
  private readonly avgLen: number;
  private readonly avgSectionLen: number;
  /** Per-query scratch, indexed by sentence row (stamp: which query marked a row as a candidate). */
  private readonly stamp: Int32Array;
  private readonly score: Float64Array;
  private query = 0;

  private constructor(
    private readonly terms: ReadonlyMap<string, number>,
    /** Sentence row → its id (ascending), its section row (-1: none), its length in distinct lexemes. */
    private readonly ids: Float64Array,
    private readonly sectionOf: Int32Array,
    private readonly len: Int32Array,
    /** Sentence row → its paper (an index into paperIds) and its section_index: where a hit sits (placeOf). */
    private readonly paperOf: Int32Array,
    private readonly sectionIndexOf: Int32Array,
    private readonly paperIds: readonly string[],
    private readonly sentences: Postings,
    /** Section row → its length (sections.lexemes). */
    private readonly sectionLen: Int32Array,
    private readonly sections: Postings,
    totals: KeywordTotals,
  ) {
    // bm25_sentences: greatest(documents, 1), greatest(lexemes / documents, 1), greatest(section_lexemes / sections, 1).
    this.n = Math.max(totals.documents, 1);
    this.avgLen = Math.max(totals.lexemes / Math.max(totals.documents, 1), 1);
    this.avgSectionLen = Math.max(totals.sectionLexemes / Math.max(totals.sections, 1), 1);
    this.stamp = new Int32Array(ids.length);
    this.score = new Float64Array(ids.length);
  }

  /** Sentences indexed. */
  get size(): number {
    return this.ids.length;
  }

  /** What the index holds, in bytes: its typed arrays, and its terms at ~2 bytes a character plus ~60 an entry. */
  get bytes(): number {
    const arrays = [
      this.ids,
      this.sectionOf,
      this.len,
      this.paperOf,
      this.sectionIndexOf,
      this.sectionLen,
      this.stamp,
      this.score,
      ...Object.values(this.sentences),
      ...Object.values(this.sections),
    ];
    let terms = 0;
    for (const t of this.terms.keys()) terms += 2 * t.length + 60;
    for (const p of this.paperIds) terms += 2 * p.length + 60;
    return arrays.reduce((a, x) => a + x.byteLength, 0) + terms;
  }

  /**
   * Reads the corpus's sentences and sections (their tsvectors) in short statements. `current` is asked between
   * them: a write or a close meanwhile makes the index useless, and the load stops (undefined).
   */
  static async load(driver: SqlDriver, current: () => boolean): Promise<KeywordIndex | undefined> {
    const totalsRow =
      (await driver.query(`SELECT documents, lexemes, sections, section_lexemes FROM fts_totals WHERE id = 1`)).rows[0] ?? {};
    const totals: KeywordTotals = {
      documents: Number(totalsRow.documents ?? 0),
      lexemes: Number(totalsRow.lexemes ?? 0),
      sections: Number(totalsRow.sections ?? 0),
      sectionLexemes: Number(totalsRow.section_lexemes ?? 0),
    };
    const terms = new Map<string, number>();
    const termOf = (lexeme: string): number => {
      let t = terms.get(lexeme);
      if (t === undefined) terms.set(lexeme, (t = terms.size));
      return t;
    };

    const sectionKey = (r: Row) => `${String(r.paper_id)}\u0000${Number(r.section_index)}`;
    const sectionRow = new Map<string, number>();
    const sectionLen: number[] = [];
    const sectionPostings = new PostingsBuilder(totals.sectionLexemes);
    const sectionsRead = await readPaged(
      driver,
      `SELECT paper_id, section_index, lexemes, tsv::text AS tsv FROM sections
       WHERE $1::text IS NULL OR (paper_id, section_index) > ($1, $2) ORDER BY paper_id, section_index`,
      { first: [null, null], keyOf: (r) => [String(r.paper_id), Number(r.section_index)], chunk: SECTION_CHUNK, current },
      (r) => {
        const row = sectionLen.length;
        sectionRow.set(sectionKey(r), row);
        sectionLen.push(Number(r.lexemes ?? 0));
        parseTsvector(String(r.tsv ?? ''), (lexeme, tf) => sectionPostings.add(termOf(lexeme), row, tf));
      },
    );
    if (!sectionsRead) return undefined;

    const ids: number[] = [];
    const sectionOf: number[] = [];
    const len: number[] = [];
    const paperOf: number[] = [];
    const sectionIndexOf: number[] = [];
    const paperRow = new Map<string, number>();
    const sentencePostings = new PostingsBuilder(totals.lexemes);
    const sentencesRead = await readPaged(
      driver,
      `SELECT id, paper_id, section_index, tsv::text AS tsv FROM sentences WHERE id > $1 ORDER BY id`,
      { first: [0], keyOf: (r) => [Number(r.id)], chunk: SENTENCE_CHUNK, current },
      (r) => {
        const row = ids.length;
        ids.push(Number(r.id));
        sectionOf.push(sectionRow.get(sectionKey(r)) ?? -1);
        const paper = String(r.paper_id);
        let p = paperRow.get(paper);
        if (p === undefined) paperRow.set(paper, (p = paperRow.size));
        paperOf.push(p);
        sectionIndexOf.push(Number(r.section_index));
        let lexemes = 0;
        parseTsvector(String(r.tsv ?? ''), (lexeme, tf) => {
          lexemes++;
          sentencePostings.add(termOf(lexeme), row, tf);
        });
        len.push(lexemes);
      },
    );
    if (!sentencesRead) return undefined;
    return new KeywordIndex(
      terms,
      Float64Array.from(ids),
      Int32Array.from(sectionOf),
      Int32Array.from(len),
      Int32Array.from(paperOf),
      Int32Array.from(sectionIndexOf),
      [...paperRow.keys()],
      sentencePostings.build(terms.size),
      Int32Array.from(sectionLen),
      sectionPostings.build(terms.size),
      totals,
    );
  }

  /**
   * The best `count` sentence ids for a query's lexemes (to_tsvector('english', query), distinct), best first, by
   * bm25_sentences' rules; [] when none of them is in the corpus.
   */
  rank(lexemes: readonly string[], count: number): number[] {
    const df = (t: number) => this.sentences.start[t + 1] - this.sentences.start[t];
    // The query's terms in the corpus, rarest first (ties by term), as bm25_sentences orders them.
    const query = [...new Set(lexemes)]
      .map((lexeme) => ({ lexeme, t: this.terms.get(lexeme) ?? -1 }))
      .filter((q) => q.t >= 0 && df(q.t) > 0)
      .sort((a, b) => df(a.t) - df(b.t) || byCodePoint(a.lexeme, b.lexeme));
    if (!query.length) return [];
    const idf = new Map(query.map((q) => [q.t, Math.log(1 + (this.n - df(q.t) + 0.5) / (df(q.t) + 0.5))]));
    const selective = query.filter((q) => df(q.t) <= COMMON_TERM_SHARE * this.n).length;
    let selecting = 0;
    for (let i = 0, total = 0; i < query.length; i++) {
      total += df(query[i].t);
      if (i < Math.max(selective, 3) && (i === 0 || total <= CANDIDATE_BUDGET)) selecting++;
    }

    // Candidates: the sentences holding a selecting term.
    const stamp = ++this.query;
    const candidates: number[] = [];
    for (const q of query.slice(0, selecting)) {
      for (let k = this.sentences.start[q.t]; k < this.sentences.start[q.t + 1]; k++) {
        const row = this.sentences.doc[k];
        if (this.stamp[row] !== stamp) {
          this.stamp[row] = stamp;
          this.score[row] = 0;
          candidates.push(row);
        }
      }
    }
    // Their BM25 over every query term, summed in the tsvector's (lexeme) order as SQL's sum() reads it.
    const lexical = [...query].sort((a, b) => byCodePoint(a.lexeme, b.lexeme));
    for (const q of lexical) this.addScores(q.t, idf.get(q.t)!, stamp, candidates);

    // First stage: own score plus the summed scores of the candidates in the same section.
    const sectionSum = new Map<number, number>();
    const byId = candidates.sort((a, b) => this.ids[a] - this.ids[b]);
    for (const row of byId) sectionSum.set(this.sectionKey(row), (sectionSum.get(this.sectionKey(row)) ?? 0) + this.score[row]);
    const rough = (row: number) => this.score[row] + sectionSum.get(this.sectionKey(row))!;
    const top = byId
      .map((row) => ({ row, rough: rough(row) }))
      .sort((a, b) => b.rough - a.rough || this.ids[a.row] - this.ids[b.row])
      .slice(0, Math.max(RERANK_MIN, RERANK_FACTOR * count))
      .map((x) => x.row);

    // Second stage: own score plus BM25_SECTION_WEIGHT × the section's BM25 (the section as one document).
    const sectionScore = this.sectionScores(new Set(top.map((row) => this.sectionOf[row]).filter((s) => s >= 0)), lexical, idf);
    return top
      .map((row) => ({ id: this.ids[row], score: this.score[row] + BM25_SECTION_WEIGHT * (sectionScore.get(this.sectionOf[row]) ?? 0) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, count)
      .map((x) => x.id);
  }

  /**
   * Where sentence `id` sits (its paper and section_index, as its row holds them), for the hybrid's per-section cap
   * without reading the row (ranking.ts hybridQuery's keywordPlaces); undefined for an id the index does not hold.
   */
  placeOf(id: number): { paperId: string; sectionIndex: number } | undefined {
    const row = this.rowOf(id);
    return row < 0 ? undefined : { paperId: this.paperIds[this.paperOf[row]], sectionIndex: this.sectionIndexOf[row] };
  }

  /** Sentence `id`'s row (rows are in id order), or -1 for an id the index does not hold. */
  rowOf(id: number): number {
    let [lo, hi] = [0, this.ids.length - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.ids[mid] < id) lo = mid + 1;
      else if (this.ids[mid] > id) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /**
   * Its rows, read only: each sentence row's id, section row (-1: none), paper (an index) and section_index, and how
   * many section rows there are (numbered in paper_id, section_index order). The in-memory hybrid ranking
   * (hybrid-fusion.ts) keeps its vectors by these rows.
   */
  get layout(): {
    ids: Float64Array;
    sectionOf: Int32Array;
    paperOf: Int32Array;
    sectionIndexOf: Int32Array;
    sections: number;
  } {
    const { ids, sectionOf, paperOf, sectionIndexOf } = this;
    return { ids, sectionOf, paperOf, sectionIndexOf, sections: this.sectionLen.length };
  }

  /** A row's section for the first stage (a row without a section row is its own group, as SQL's NULL-free keys). */
  private sectionKey(row: number): number {
    const s = this.sectionOf[row];
    return s >= 0 ? s : -1 - row;
  }

  /** BM25's term weight (bm25Sum in ranking.ts, same operations in the same order, so the same doubles). */
  private static weight(idf: number, tf: number, len: number, avgLen: number): number {
    return (idf * (tf * (BM25_K1 + 1))) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * len) / avgLen));
  }

  /**
   * Adds term t's weight to the candidates holding it. A term far more frequent than the candidates (a common word
   * scores them but did not select them) is looked up in their postings by binary search instead of walking all of
   * them: at 100k sentences a word in every sentence walked 100k postings to score ~100 candidates. The same
   * additions in the same order either way, so the same doubles.
   */
  private addScores(t: number, idf: number, stamp: number, candidates: readonly number[]): void {
    const p = this.sentences;
    const [from, to] = [p.start[t], p.start[t + 1]];
    if (to - from > candidates.length * SEARCH_FACTOR) {
      for (const row of candidates) {
        const k = find(p.doc, from, to, row);
        if (k >= 0 && p.tf[k] > 0) this.score[row] += KeywordIndex.weight(idf, p.tf[k], this.len[row], this.avgLen);
      }
      return;
    }
    for (let k = from; k < to; k++) {
      const row = p.doc[k];
      if (this.stamp[row] === stamp && p.tf[k] > 0) this.score[row] += KeywordIndex.weight(idf, p.tf[k], this.len[row], this.avgLen);
    }
  }

  private sectionScores(
    wanted: ReadonlySet<number>,
    lexical: readonly { t: number }[],
    idf: ReadonlyMap<number, number>,
  ): Map<number, number> {
    const out = new Map<number, number>();
    const p = this.sections;
    const add = (s: number, k: number, t: number) => {
      if (p.tf[k] > 0) out.set(s, (out.get(s) ?? 0) + KeywordIndex.weight(idf.get(t)!, p.tf[k], this.sectionLen[s], this.avgSectionLen));
    };
    for (const q of lexical) {
      const [from, to] = [p.start[q.t], p.start[q.t + 1]];
      // As addScores: a term in far more sections than are wanted is looked up in its postings.
      if (to - from > wanted.size * SEARCH_FACTOR) {
        for (const s of wanted) {
          const k = find(p.doc, from, to, s);
          if (k >= 0) add(s, k, q.t);
        }
        continue;
      }
      for (let k = from; k < to; k++) if (wanted.has(p.doc[k])) add(p.doc[k], k, q.t);
    }
    return out;
  }
}
