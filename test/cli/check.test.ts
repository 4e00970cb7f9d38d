// `corpus-lens check` (the built CLI, as users run it) against a corpus built in the test by `corpus-lens ingest`
// from three cited papers (test/fixtures/cite-check/corpus, Markdown with DOIs): a LaTeX project (main file with an
// \input section and a .bib) and a Markdown paper with correct, missing-from-bib, not-in-corpus, unsupported and
// swapped citations give exactly the expected results; --claims prints the documented JSON lines; with an LLM (a
// scripted stand-in speaking the OpenAI chat wire format, test/support/cite-check-model.ts) the verdict is the
// model's 3-way one through the real prompt, its data fenced.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runCli } from '../support/cli.ts';
import { CORPUS_TAG, fenceReport, fenced, startChatStandin, TOPIC_TAG, type ChatStandin } from '../support/chat-standin.ts';
import { citeVerdictModel } from '../support/cite-check-model.ts';

const fixtures = join(__dirname, '..', 'fixtures', 'cite-check');
const dir = mkdtempSync(join(tmpdir(), 'corpus-lens-check-cli-'));
const db = join(dir, 'corpus');
after(() => rmSync(dir, { recursive: true, force: true }));

const DPR = 'doi:10.18653/v1/2020.emnlp-main.550';
const SLEEP = 'doi:10.5555/sleep.2019.0142';
const COFFEE = 'doi:10.5555/hepatology.2018.0077';

interface Row {
  file: string;
  line: number;
  column: number;
  command: string;
  key: string;
  sentence: string;
  status: string;
  paper: string | null;
  verdict: string | null;
  score: number | null;
  evidence: { sentenceIndex: number; text: string; page: number | null }[];
  alternatives: { paper: string; key: string | null; inBib: boolean; score: number; evidence: { text: string }[] }[];
}

async function check(...args: string[]): Promise<Row[]> {
  const r = await runCli(['check', '--db', db, '--json', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
}

/** What a user reads off each result: where, which key, what became of it, and the fix offered. */
const summary = (rows: Row[]) =>
  rows.map((r) => [
    basename(r.file),
    r.line,
    r.key,
    r.status,
    r.paper,
    r.verdict,
    r.alternatives.map((a) => `${a.key}${a.inBib ? '' : ' (not in .bib)'}`),
  ]);

before(async () => {
  const r = await runCli([
    'ingest',
    '--db',
    db,
    '--json',
    ...['dense-retrieval.md', 'sleep-memory.md', 'coffee-liver.md'].map((f) => join(fixtures, 'corpus', f)),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).papers, 3);
});

describe('corpus-lens check FILE', () => {
  test('a LaTeX project: its \\input file is read, keys resolve through the .bib (DOI, or title when the entry has none), each citation gets its verdict', async () => {
    const rows = await check(join(fixtures, 'latex-project', 'main.tex'));
    assert.deepEqual(summary(rows), [
      ['main.tex', 7, 'manning2008', 'not-in-corpus', null, 'not-in-corpus', []],
      // swapped: the sleep finding cited to the coffee paper; the fix is the sleep paper, already in the .bib
      ['main.tex', 11, 'okafor2018', 'checked', COFFEE, 'unsupported', ['lindqvist2019']],
      ['main.tex', 12, 'okafor2018', 'checked', COFFEE, 'supported', []],
      ['background.tex', 2, 'karpukhin2020', 'checked', DPR, 'supported', []],
      // unsupported: the paper is about dense retrieval, not query expansion; no corpus paper supports it
      ['background.tex', 3, 'karpukhin2020', 'checked', DPR, 'unsupported', []],
      ['background.tex', 4, 'carlini2021', 'missing-from-bib', null, null, []],
    ]);
    const [, swapped, coffee, dpr] = rows;
    assert.match(swapped.alternatives[0].evidence[0].text, /^After a night without sleep, accuracy on the n-back task fell by 14%/);
    assert.match(coffee.evidence[0].text, /^Drinking two or more cups of coffee per day was associated with a 30% lower risk/);
    assert.match(dpr.evidence[0].text, /outperforms a strong Lucene-BM25 system largely by 9%-19%/);
    assert.equal(dpr.evidence.length, 3);
    assert.ok(dpr.evidence[0].sentenceIndex >= 0 && dpr.evidence[0].page === null);
    assert.equal(coffee.sentence, 'Drinking two or more cups of coffee a day was associated with a 30% lower risk of liver cirrhosis.');
    assert.equal(rows[0].column, 'Search engines have long ranked documents by term statistics over an inverted index~'.length + 1);
  });

  test('a Markdown paper (Pandoc citations, bibliography from its front matter)', async () => {
    const rows = await check(join(fixtures, 'markdown', 'paper.md'));
    assert.deepEqual(summary(rows), [
      ['paper.md', 8, 'lindqvist2019', 'checked', SLEEP, 'supported', []],
      ['paper.md', 9, 'lindqvist2019', 'checked', SLEEP, 'unsupported', ['okafor2018']],
      ['paper.md', 10, 'karpukhin2020', 'checked', DPR, 'supported', []],
      ['paper.md', 11, 'vaswani2017', 'missing-from-bib', null, null, []],
    ]);
    assert.match(rows[1].alternatives[0].evidence[0].text, /^Each additional daily cup of coffee was associated with a 10% reduction/);
  });

  test('without --json: one compiler-style line per citation, with the closest sentence and the paper to cite instead', async () => {
    const r = await runCli(['check', '--db', db, join(fixtures, 'latex-project', 'main.tex')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /main\.tex:11:\d+: warning: okafor2018 \("Coffee Consumption[^"]*"\) does not support the sentence/);
    assert.match(r.stdout, /\n {2}closest: "/);
    assert.match(r.stdout, /\n {2}cite instead\/also: lindqvist2019 \("Sleep Deprivation Impairs Working Memory in Healthy Adults"/);
    assert.match(r.stdout, /background\.tex:4:\d+: error: carlini2021 is in no \.bib of the project/);
    assert.match(r.stdout, /main\.tex:7:\d+: info: manning2008 is not in the corpus — add it to check/);
  });
});

describe('corpus-lens check --claims', () => {
  test('one JSON line per claim in the documented shape; cites by paper id, by corpus key, by a --bib key, or unknown', async () => {
    const claims = join(dir, 'claims.jsonl');
    writeFileSync(
      claims,
      [
        { id: 'c1', text: 'Drinking coffee daily was associated with a 30% lower risk of cirrhosis.', cites: [COFFEE, 'lindqvist2019'] },
        { id: 'c2', text: 'One night without sleep lowered n-back accuracy by 14%.', cites: ['unknown2020'] },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n') + '\n',
    );
    const r = await runCli(['check', '--db', db, '--claims', claims, '--json', '--bib', join(fixtures, 'latex-project', 'refs.bib')]);
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(out.length, 2);
    assert.deepEqual(Object.keys(out[0]), ['id', 'cites']);
    for (const c of out.flatMap((o) => o.cites)) assert.deepEqual(Object.keys(c), ['paper', 'key', 'verdict', 'score', 'evidence']);
    const [coffee, sleep] = out[0].cites;
    assert.deepEqual([coffee.paper, coffee.verdict], [COFFEE, 'supported']);
    assert.deepEqual([sleep.paper, sleep.key, sleep.verdict], [SLEEP, 'lindqvist2019', 'unsupported']);
    assert.ok(coffee.score > sleep.score && coffee.score <= 1 && sleep.score >= 0);
    assert.deepEqual(Object.keys(coffee.evidence[0]), ['sentenceIndex', 'text', 'page']);
    assert.equal(
      coffee.evidence[0].text,
      'Drinking two or more cups of coffee per day was associated with a 30% lower risk of cirrhosis compared with drinking no coffee.',
    );
    assert.ok(coffee.evidence.every((e: { score?: number }, i: number) => i === 0 || e.score === undefined));
    assert.deepEqual(out[1], { id: 'c2', cites: [{ paper: null, key: 'unknown2020', verdict: 'not-in-corpus', score: 0, evidence: [] }] });
  });

  test('usage errors exit 2 with one line; a bad claims line names its line and exits 1', async () => {
    for (const args of [
      [],
      ['--claims', 'x.jsonl'],
      ['--threshold', '2', 'a.tex'],
      ['--claims', 'x.jsonl', '--json', 'a.tex'],
      ['--evdence', '3', 'a.tex'],
    ]) {
      const r = await runCli(['check', '--db', db, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id":1,"text":"x","cites":["a"]}\n{"id":2,"text":"y"}\n');
    const r = await runCli(['check', '--db', db, '--claims', bad, '--json']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.jsonl:2: "cites" must be an array/);
    assert.equal(r.stdout, '');
  });
});

describe('corpus-lens check with an LLM (scripted stand-in, OpenAI chat wire format)', () => {
  let standin: ChatStandin;
  before(async () => {
    standin = await startChatStandin(citeVerdictModel());
  });
  after(() => standin.close());

  test('the 3-way verdict with its quote comes from the model, through the real prompt, the data fenced', async () => {
    const claims = join(dir, 'llm-claims.jsonl');
    writeFileSync(
      claims,
      [
        { id: 'supported', text: 'Accuracy on the n-back task fell after a night without sleep.', cites: [SLEEP] },
        { id: 'contradicted', text: 'Tea consumption was associated with the risk of cirrhosis.', cites: [COFFEE] },
        { id: 'nei', text: 'Melatonin supplements shorten jet lag recovery in pilots.', cites: [SLEEP] },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n') + '\n',
    );
    const r = await runCli(
      ['check', '--db', db, '--claims', claims, '--json', '--llm-base-url', standin.baseURL, '--llm-model', 'stand-in'],
      { env: { OPENAI_API_KEY: 'test' } },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      out.map((o) => [o.id, o.cites[0].verdict]),
      [
        ['supported', 'supported'],
        ['contradicted', 'contradicted'],
        ['nei', 'unsupported'],
      ],
    );
    assert.equal(
      out[1].cites[0].evidence[0].text,
      'Tea consumption was not associated with the risk of cirrhosis.',
      'the quote the model judged by comes first',
    );
    assert.equal(standin.calls.length, 3);
    for (const call of standin.calls) {
      assert.equal(call.step, 'citecheck');
      const first = /^\[E1\] (.*)$/m.exec(fenced(call, CORPUS_TAG))?.[1] ?? '';
      assert.ok(first.length > 20, "the paper's sentences are numbered inside the corpus fence");
      assert.ok(fenceReport(call, first).intact, 'corpus text only inside the fence');
      assert.ok(fenced(call, TOPIC_TAG).length > 0, "the author's sentence is fenced");
    }
    assert.match(fenced(standin.calls[1], TOPIC_TAG), /Tea consumption was associated/);
  });
});
