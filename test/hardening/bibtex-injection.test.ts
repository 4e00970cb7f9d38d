// A shared corpus is written by others: whatever a paper row holds, the BibTeX entry Cite and review write must
// parse back (with the parser the project reads .bib files with) to exactly one entry carrying the intended values
// and no other field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBibtexEntry, loadBibtexParser, splitName, type CitablePaper } from '../../src/core/bib/index.ts';
import { planCitation } from '../../src/core/bib/cite.ts';
import { citedPaper } from '../../src/core/review/emit.ts';

const PAYLOADS = [
  '10.1234/x}, note = {\\input{/etc/passwd}}, x={',
  'x}}}}, title={pwned',
  '{{{{ unbalanced',
  'back\\slash \\def\\x{1} \\input{/etc/passwd}',
  'at @article{evil, title={x}} end',
  'line one\n@misc{evil2,\n  note = {x}\n}\nline two',
  'quote " and # % & $ _ ~ ^ chars',
  'nul\u0000byte and \r\n crlf \u2028 sep',
];
const ALLOWED = new Set(['title', 'author', 'year', 'journal', 'doi', 'eprint', 'archiveprefix', 'url']);

async function parseOne(bib: string) {
  const { parse } = await loadBibtexParser();
  const lib = parse(bib, { sentenceCase: false, caseProtection: false });
  assert.deepEqual(lib.errors, [], bib);
  assert.equal(lib.entries.length, 1, bib);
  assert.deepEqual(lib.comments, [], bib);
  const entry = lib.entries[0];
  for (const f of Object.keys(entry.fields)) assert.ok(ALLOWED.has(f), `unexpected field ${f} in\n${bib}`);
  return entry;
}

const oneLine = (s: string) =>
  s
    .replace(/[\u0000-\u001f\u2028\u2029]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

for (const payload of PAYLOADS) {
  test(`every field carrying ${JSON.stringify(payload.slice(0, 30))} stays inside its field`, async () => {
    const paper: CitablePaper = {
      title: payload,
      authors: [payload, `Ann ${payload}`, 'Ann Smith'],
      year: 2020,
      venue: payload,
      doi: payload,
      arxivId: payload,
      url: `https://example.org/${payload}`,
    };
    const bib = formatBibtexEntry(paper, `key${payload}`);
    assert.ok(!/\n\s*@/.test(bib), 'no line of the entry starts another');
    const entry = await parseOne(bib);
    assert.match(entry.key, /^[\w:.+/-]+$/);
    assert.equal(entry.fields.title, oneLine(payload));
    assert.equal(entry.fields.journal, oneLine(payload));
    const authors = entry.fields.author!;
    assert.equal(authors.length, 3);
    authors.forEach((c, i) => {
      const { first, last } = splitName(oneLine(paper.authors![i]));
      // BibTeX reads a leading lower-case word of the last name as its 'von' part.
      if (first) assert.deepEqual([[c.prefix, c.lastName].filter(Boolean).join(' '), c.firstName], [last, first]);
      else assert.equal(c.name ?? c.lastName, last);
    });
    // Not a DOI / arXiv id: left out rather than written.
    assert.equal(entry.fields.doi, undefined);
    assert.equal(entry.fields.eprint, undefined);
    // The URL is kept, percent-encoded, and decodes back to the value (less its line breaks).
    assert.equal(decodeURIComponent(entry.fields.url as string), oneLine(paper.url!));
  });
}

test('a DOI in a URL form and a real arXiv id are written; other schemes are not', async () => {
  const entry = await parseOne(
    formatBibtexEntry({ title: 'T', doi: 'https://doi.org/10.1000/abc_(d)', arxivId: '2401.00001v2', url: 'file:///etc/passwd' }, 'k'),
  );
  assert.equal(entry.fields.doi, '10.1000/abc_(d)');
  assert.equal(entry.fields.eprint, '2401.00001v2');
  assert.equal(entry.fields.url, undefined);
});

test("Cite's plan and review's citations write the escaped entry", async () => {
  const paper = { title: 'Good Title', authors: ['Ann Smith'], year: 2020, venue: null, doi: PAYLOADS[0], arxivId: null, url: null };
  const plan = await planCitation('', paper);
  assert.ok(plan.entry);
  assert.ok(!plan.entry.includes('\\input'), plan.entry);
  await parseOne(plan.entry);
  const cited = citedPaper({ ...paper, id: 'p1' } as never, 'P1', undefined, new Set());
  await parseOne(cited.bibtex);
});
