// Citations inside quotes, end to end: a tiny corpus where paper A (Jones) reports paper B's (Smith's) result with
// \citet{smith2019sparse}, resolved through A's .bib, and B is in the corpus. A REAL PGlite corpus built by the real
// ingest, Ask offline (extract) and with the REAL `openai` client against the chat stand-in (faithful model).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ask, newConversation, parseConversation, serializeConversation, sourcesText } from '../../src/core/ask/index.js';
import { createEmbedder } from '../../src/core/embed/index.js';
import { OpenAIChat } from '../../src/core/llm/index.js';
import { ingest } from '../../src/core/ingest/pipeline.js';
import { openPGliteStore } from '../../src/core/store/backends/pglite.js';
import type { SqlCorpusStore } from '../../src/core/store/sql/store.js';
import { faithfulAskModel } from '../support/ask-models.js';
import { reviewModel, startChatStandin, type ChatStandin } from '../support/chat-standin.js';
import { runReview } from '../../src/core/review/index.js';

const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-inner-'));
const embedder = createEmbedder({ provider: 'offline' });
let store: SqlCorpusStore;
let standin: ChatStandin;

const SMITH_TITLE = 'Sparse Lexical Retrieval Improves Recall on Long Queries';
const QUESTION = 'Does sparse lexical retrieval improve recall on long queries?';

function tex(title: string, author: string, date: string, body: string, bib = ''): string {
  return `\\documentclass{article}\n\\title{${title}}\n\\author{${author}}\n\\date{${date}}\n\\begin{document}\n\\maketitle\n${body}\n${bib}\\end{document}\n`;
}

before(async () => {
  mkdirSync(join(dir, 'papers'));
  writeFileSync(
    join(dir, 'papers', 'smith.tex'),
    tex(
      SMITH_TITLE,
      'Jane Smith \\and Ravi Kumar \\and Lea Park',
      '2019',
      '\\section{Results}\nOn our benchmark, sparse lexical retrieval raises recall on long queries by eleven points over dense retrieval.\nShort queries show no difference between the two methods.\n',
    ),
  );
  writeFileSync(
    join(dir, 'papers', 'jones.tex'),
    tex(
      'A Survey of Passage Retrieval for Scholarly Writing',
      'Tom Jones',
      '2022',
      '\\section{Background}\nAs shown by \\citet{smith2019sparse}, sparse lexical retrieval improves recall on long queries by eleven points.\nWe survey passage retrieval for writing assistants in this paper.\n',
      '\\bibliographystyle{plain}\n\\bibliography{refs}\n',
    ),
  );
  writeFileSync(
    join(dir, 'papers', 'refs.bib'),
    `@inproceedings{smith2019sparse,\n  title = {${SMITH_TITLE}},\n  author = {Smith, Jane and Kumar, Ravi and Park, Lea},\n  booktitle = {Proc. SIGIR},\n  year = {2019}\n}\n`,
  );
  store = await openPGliteStore(join(dir, 'corpus'));
  const summary = await ingest(store, [join(dir, 'papers')], { embedder });
  assert.equal(summary.failed.length, 0, JSON.stringify(summary.failed));
  standin = await startChatStandin(faithfulAskModel());
});

after(async () => {
  await store?.close();
  await standin?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('ingest stores which sentence of the quoting paper cites which work of its .bib', async () => {
  const papers = await store.listPapers();
  const jones = papers.find((p) => p.title?.startsWith('A Survey'))!;
  const [row] = await store.citedWorks([jones.id]);
  assert.equal(row.works.length, 1);
  assert.equal(row.works[0].key, 'smith2019sparse');
  assert.equal(row.works[0].title, SMITH_TITLE);
  assert.deepEqual(row.works[0].citedBy, [0]);
});

test('offline Ask: the quote that cites Smith et al. offers the original, in the corpus', async () => {
  const c = newConversation();
  const turn = await ask(c, QUESTION, { store, embedder, chat: null });
  assert.equal(turn.kind, 'extract');
  const smith = (await store.listPapers()).find((p) => p.title === SMITH_TITLE)!;
  const quoting = c.sources.find((s) => /As shown by/.test(s.text) || /improves recall on long queries by eleven/.test(s.text))!;
  assert.ok(quoting, JSON.stringify(c.sources.map((s) => s.text)));
  assert.equal(quoting.cites?.length, 1);
  assert.equal(quoting.cites![0].work, 'Smith et al. 2019');
  assert.equal(quoting.cites![0].inCorpus?.paperId, smith.id);
  assert.match(turn.text, new RegExp(`cites: Smith et al\\. 2019 — in your corpus \\(${SMITH_TITLE}\\)`));
  // Smith's own sentence cites nothing.
  assert.ok(c.sources.filter((s) => s.paperId === smith.id).every((s) => !s.cites));
  assert.match(sourcesText(c, turn.citations), /cites: Smith et al\. 2019 — in your corpus/);
  // A saved conversation (the extension's workspace state, the CLI's --history) keeps them.
  assert.deepEqual(parseConversation(serializeConversation(c)).sources, c.sources);
});

test('Ask with a model: a claim backed by the quoting paper alone is marked "as cited in"', async () => {
  const chat = new OpenAIChat({ baseURL: standin.baseURL, model: 'standin-model', apiKey: 'test-key', timeoutMs: 5000, maxRetries: 0 });
  const c = newConversation();
  const turn = await ask(c, QUESTION, {
    store,
    embedder,
    chat,
    excludePaperIds: [(await store.listPapers()).find((p) => p.title === SMITH_TITLE)!.id],
  });
  assert.equal(turn.kind, 'answer', turn.text);
  const n = c.sources.find((s) => s.cites?.length)!.n;
  assert.match(turn.text, new RegExp(`\\(Smith et al\\. 2019, as cited in \\[${n}\\]\\)`));
  assert.doesNotMatch(turn.text, new RegExp(`(?<!as cited in )\\[${n}\\]`));
});

test('related work: a sentence resting on the quote that cites Smith cites Smith, "as cited in" Jones', async () => {
  standin.setScript(reviewModel());
  const chat = new OpenAIChat({ baseURL: standin.baseURL, model: 'standin-model', apiKey: 'test-key', timeoutMs: 5000, maxRetries: 0 });
  const r = await runReview({ store, embedder, chat, topic: 'sparse lexical retrieval recall on long queries', format: 'latex' });
  const body = r.sections.map((s) => s.body).join('\n');
  const smith = r.cited.find((c) => c.paper.title === SMITH_TITLE);
  const jones = r.cited.find((c) => c.paper.title?.startsWith('A Survey'));
  assert.ok(smith && jones, JSON.stringify(r.cited.map((c) => c.key)));
  assert.match(body, new RegExp(`\\\\cite\\{${smith.key}\\} \\(as cited in~?\\\\cite\\{${jones.key}\\}\\)`));
  assert.equal(r.trace.steps.find((s) => s.step === 'check')?.counts.secondHandMarked, 1);
});

test('Ask asks the store for the cited works and venues, never for every paper, and answers as from the whole list', async () => {
  const calls: string[] = [];
  // The same corpus seen through a counting proxy, and through one without the lookups (every paper listed, as before).
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver);
      return typeof v === 'function' ? (...args: unknown[]) => (calls.push(String(name)), v.apply(target, args)) : v;
    },
  });
  const listing = new Proxy(store, {
    get: (target, name) => (name === 'findPapers' || name === 'venues' ? undefined : (Reflect.get(target, name) as unknown)),
  });
  // A capital inside the question: it may name a venue, so Ask reads the corpus's venues.
  const question = 'Does Sparse lexical retrieval improve recall on long queries?';
  const a = newConversation();
  const viaLookup = await ask(a, question, { store: counted, embedder, chat: null });
  const b = newConversation();
  const viaList = await ask(b, question, { store: listing, embedder, chat: null });
  assert.ok(!calls.includes('listPapers'), calls.join(' '));
  assert.ok(calls.includes('findPapers') && calls.includes('venues'), calls.join(' '));
  assert.equal(viaLookup.text, viaList.text);
  assert.deepEqual(
    a.sources.map((s) => s.cites),
    b.sources.map((s) => s.cites),
  );
  assert.ok(
    a.sources.some((s) => s.cites?.[0]?.inCorpus),
    'the quote that cites Smith offers the paper',
  );
  // The venue list is read from the database once and kept until a write.
  const query = store.driver.query.bind(store.driver);
  const statements: string[] = [];
  store.driver.query = (sql, params) => (statements.push(sql), query(sql, params));
  try {
    await ask(newConversation(), question, { store, embedder, chat: null });
    assert.equal(statements.filter((q) => q.includes('list_venues')).length, 0, 'kept from the first question');
    await store.writePapers([]);
    await ask(newConversation(), question, { store, embedder, chat: null });
    assert.equal(statements.filter((q) => q.includes('list_venues')).length, 1, 'read again after a write');
  } finally {
    store.driver.query = query;
  }
});

test('findPapers finds a cited title however its accents, ligatures and punctuation are written, and not others', async () => {
  const smith = (await store.listPapers()).find((p) => p.title === SMITH_TITLE)!;
  const ids = async (q: Partial<Parameters<SqlCorpusStore['findPapers']>[0]>) =>
    (await store.findPapers({ dois: [], titles: [], keys: [], texts: [], ...q })).map((p) => p.id);
  assert.deepEqual(await ids({ titles: ['SPARSE lexical retrieval: improves recall on long queries!'] }), [smith.id]);
  assert.deepEqual(await ids({ titles: ['Sparse Lexical Retrieval Improves Recall on Long Quéries'] }), [smith.id]);
  assert.deepEqual(await ids({ texts: ['J. Smith. Sparse lexical retrieval improves recall on long queries. In SIGIR, 2019.'] }), [
    smith.id,
  ]);
  assert.deepEqual(await ids({ keys: [smith.citationKey!.toLowerCase()] }), [smith.id]);
  assert.deepEqual(await ids({ titles: ['Dense Retrieval Improves Recall'], keys: ['nokey'], dois: ['10.1/none'] }), []);
});
