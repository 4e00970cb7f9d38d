// npm test runs this file alone: a re-read must take under 500 ms.
// BibTeX: @retorquere/bibtex-parser over real, tricky files (../shared/eval/bibtex), abstract-only papers, the
// BibIndex, and the Cite action's helpers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { BibIndex, formatBibtexEntry, loadBibtexParser, makeCitationKey, parseBibtex, stripMarkup } from '../../src/core/bib/index.ts';
import { readBibtexText } from '../../src/core/ingest/bib.ts';
import { evalPath } from '../support/eval.ts';

const other = evalPath('bibtex', 'other');
const snapshots = evalPath('bibtex', 'other-snapshots-sentencecase-off_caseprotection-off');
const scipyBib = evalPath('bibtex', 'scipy-1.0-references.bib');
const noEval = 'shared/eval absent';

test('every file of bibtex/other parses or reports per-entry errors; none crashes', { skip: !other && noEval }, async () => {
  const files = readdirSync(other!).filter((f) => f.endsWith('.bib'));
  assert.equal(files.length, 14);
  for (const f of files) {
    const path = join(other!, f);
    const r = await readBibtexText(readFileSync(path, 'utf8'), path);
    for (const e of r.errors) {
      assert.equal(e.file, path);
      assert.ok(e.reason.length > 0);
    }
    for (const p of r.papers) {
      assert.deepEqual(p.sections, [{ title: 'Abstract', number: null, level: 1 }]);
      assert.ok(p.sentences.length > 0);
    }
  }
});

test(
  'entries equal the upstream snapshots (sentence case off, case protection off)',
  { skip: !(other && snapshots) && noEval },
  async () => {
    const { parse } = await loadBibtexParser();
    let compared = 0;
    for (const f of [
      'citation-js.bib',
      'edge-cases.bib',
      'strings.bib',
      'mnras.bib',
      'quotation-18.bib',
      'textquotedblleft_13.bib',
      'verbatim-string.bib',
      'mid-word-capital.bib',
    ]) {
      const text = readFileSync(join(other!, f), 'utf8');
      const snap = parseYaml(readFileSync(join(snapshots!, `${f}.yaml`), 'utf8')) as {
        entries: Array<{ key: string; type: string; fields: Record<string, unknown> }>;
        errors: unknown[];
      };
      const lib = parse(text, { sentenceCase: false, caseProtection: false });
      assert.equal(lib.entries.length, snap.entries.length, f);
      assert.equal(lib.errors.length, snap.errors.length, `${f}: errors`);
      lib.entries.forEach((e, i) => {
        assert.equal(e.key, snap.entries[i].key, `${f}[${i}] key`);
        assert.equal(e.type, snap.entries[i].type, `${f}[${i}] type`);
        assert.deepEqual(JSON.parse(JSON.stringify(e.fields)), snap.entries[i].fields, `${f}[${i}] fields`);
        compared++;
      });
      // Our records carry the same titles (markup stripped) and keys.
      // Every parser complaint is reported: as an error, or as a warning when the entry is kept whole.
      const { records, errors, warnings } = await parseBibtex(text, f);
      assert.equal(errors.length + warnings.length, snap.errors.length, `${f}: reported errors and warnings`);
      records.forEach((r, i) => {
        assert.equal(r.key, snap.entries[i].key);
        const title = snap.entries[i].fields.title;
        if (typeof title === 'string') assert.equal(r.title, stripMarkup(title) || null);
      });
    }
    assert.ok(compared >= 30, `compared ${compared} entries`);
    // Entry-by-entry parsing (cached) gives what the whole-file parse gives, for every file.
    for (const f of readdirSync(other!).filter((x) => x.endsWith('.bib'))) {
      const snap = parseYaml(readFileSync(join(snapshots!, `${f}.yaml`), 'utf8')) as { entries: Array<{ key: string }>; errors: unknown[] };
      const { records, errors, warnings } = await parseBibtex(readFileSync(join(other!, f), 'utf8'), f);
      assert.deepEqual(
        records.map((r) => r.key),
        snap.entries.map((e) => e.key),
        `${f}: keys`,
      );
      assert.equal(errors.length + warnings.length, snap.errors.length, `${f}: errors and warnings`);
    }
  },
);

test('a .bib read again is not parsed again (unchanged entries come from the cache)', { skip: !scipyBib && noEval }, async () => {
  const text = readFileSync(scipyBib!, 'utf8');
  const first = await parseBibtex(text);
  const t0 = performance.now();
  const appended = await parseBibtex(text + '\n@misc{new2024entry, title={A New Entry}, year=2024}\n');
  const ms = performance.now() - t0;
  assert.equal(appended.records.length, first.records.length + 1);
  assert.deepEqual(appended.records.slice(0, -1), first.records);
  assert.ok(ms < 500, `re-reading 184 entries with one new took ${ms.toFixed(0)} ms`);
});

test('the SciPy paper bibliography: 183 entries, none with an abstract, all in the index', { skip: !scipyBib && noEval }, async () => {
  const r = await readBibtexText(readFileSync(scipyBib!, 'utf8'), scipyBib!);
  assert.deepEqual(r.errors, []);
  assert.equal(r.index.size, 183);
  assert.equal(r.papers.length, 0);
  const first = r.index.records[0];
  assert.equal(first.key, 'dubois2007guest');
  assert.equal(first.title, 'Python: Batteries Included');
  assert.deepEqual(first.authors, ['Paul F Dubois']);
  assert.equal(first.year, 2007);
  assert.equal(first.doi, '10.1109/mcse.2007.51');
  assert.equal(r.index.match({ title: 'python: batteries   included!' })?.key, 'dubois2007guest');
  assert.equal(r.index.match({ doi: 'https://doi.org/10.1109/MCSE.2007.51' })?.key, 'dubois2007guest');
});

test('entries with an abstract become abstract-only papers; malformed entries are reported one by one', async () => {
  const bib = String.raw`
@string{jml = "Journal of Machine Learning"}
@article{smith2020sparse,
  title = {Sparse {Models} for \emph{Dense} Text},
  author = {Smith, Ann and van der Berg, Jan},
  journal = jml,
  year = {2020},
  doi = {10.5555/XYZ.123},
  abstract = {We study sparse models. They work well, e.g. on long text.}
}
@article{broken, title = {Missing the closing brace, author = {Nobody}
@misc{arx, title={An arXiv Paper}, author={Lee, Kim}, year=2023, eprint={2301.00001v2}, archivePrefix={arXiv}, abstract={One sentence only.}}
@book{plain, title = {A Book Without Abstract}, author = {Doe, Jane}, year = 1999}
`;
  const r = await readBibtexText(bib, 'refs.bib');
  assert.ok(r.errors.length >= 1, 'the broken entry is reported');
  assert.ok(r.errors.every((e) => e.file === 'refs.bib'));
  const byKey = new Map(r.papers.map((p) => [p.citationKey, p]));
  const smith = byKey.get('smith2020sparse')!;
  assert.equal(smith.id, 'doi:10.5555/xyz.123');
  assert.equal(smith.title, 'Sparse Models for Dense Text');
  assert.deepEqual(smith.authors, ['Ann Smith', 'Jan van der Berg']);
  assert.equal(smith.venue, 'Journal of Machine Learning');
  assert.equal(smith.year, 2020);
  assert.deepEqual(smith.sections, [{ title: 'Abstract', number: null, level: 1 }]);
  assert.deepEqual(
    smith.sentences.map((s) => [s.sectionIndex, s.sentenceIndex, s.globalIndex, s.page, s.text]),
    [
      [0, 0, 0, null, 'We study sparse models.'],
      [0, 1, 1, null, 'They work well, e.g. on long text.'],
    ],
  );
  assert.match(smith.bibtex ?? '', /^@article\{smith2020sparse,/);
  const arx = byKey.get('arx')!;
  assert.equal(arx.id, 'arxiv:2301.00001');
  assert.equal(arx.arxivId, '2301.00001');
  assert.ok(!byKey.has('plain'), 'no abstract: metadata only');
  assert.equal(r.index.match({ title: 'A book without abstract' })?.key, 'plain');
});

test('makeCitationKey: authorYEARword, stable, never colliding', () => {
  const paper = { title: 'On the Sparse Representation of Text', authors: ['Ann Smith', 'Bob Jones'], year: 2020 };
  assert.equal(makeCitationKey(paper, []), 'smith2020sparse');
  assert.equal(makeCitationKey(paper, ['smith2020sparse']), 'smith2020sparsea');
  assert.equal(makeCitationKey(paper, ['smith2020sparse', 'smith2020sparsea']), 'smith2020sparseb');
  const many = Array.from({ length: 27 }, (_, i) => (i === 0 ? 'smith2020sparse' : 'smith2020sparse' + String.fromCharCode(96 + i)));
  assert.equal(makeCitationKey(paper, many), 'smith2020sparseaa');
  assert.equal(makeCitationKey({ title: 'Über Größe', authors: ['Jürgen Müßig'], year: 1999 }, []), 'mussig1999uber');
  assert.equal(makeCitationKey({ title: 'Ein Werk', authors: ['Ludwig van Beethoven'], year: 1810 }, []), 'beethoven1810ein');
  assert.equal(makeCitationKey({ title: null, authors: [], year: null }, []), 'anon');
  assert.equal(makeCitationKey({ title: 'X', authors: ['Smith, Ann'], year: 2001 }, ['SMITH2001']), 'smith2001a');
});

test('formatBibtexEntry renders a parseable entry that round-trips', async () => {
  const paper = {
    title: 'Costs & Benefits of 100% Sparse {Attention}',
    authors: ['Ann Smith', 'Jan van der Berg'],
    year: 2021,
    venue: 'Journal of Things',
    doi: '10.1000/abc',
    arxivId: null,
    url: null,
  };
  const entry = formatBibtexEntry(paper, 'smith2021costs');
  assert.match(entry, /^@article\{smith2021costs,\n/);
  const { records, errors } = await parseBibtex(entry);
  assert.deepEqual(errors, []);
  assert.equal(records[0].title, paper.title);
  assert.deepEqual(records[0].authors, paper.authors);
  assert.equal(records[0].year, 2021);
  assert.equal(records[0].venue, 'Journal of Things');
  assert.equal(records[0].doi, '10.1000/abc');
  const misc = formatBibtexEntry({ title: 'A Preprint', authors: ['Kim Lee'], year: 2024, arxivId: '2401.00001' });
  assert.match(misc, /^@misc\{lee2024preprint,/);
  assert.match(misc, /eprint = \{2401\.00001\}/);
});

test('BibIndex matches by DOI, arXiv id, then normalised title', () => {
  const rec = {
    key: 'k',
    type: 'article',
    title: 'Deep Learning: A Survey',
    authors: [],
    year: 2015,
    venue: null,
    doi: '10.1000/x',
    arxivId: '1501.00001',
    url: null,
    abstract: null,
    bibtex: '@article{k}',
    file: null,
  };
  const index = new BibIndex([rec]);
  assert.equal(index.match({ doi: 'DOI:10.1000/X' }), rec);
  assert.equal(index.match({ arxivId: 'arXiv:1501.00001v3' }), rec);
  assert.equal(index.match({ title: 'deep learning — a survey' }), rec);
  assert.equal(index.match({ title: 'Deep Learning' }), undefined);
});
