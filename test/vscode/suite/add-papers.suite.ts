// Add Papers inside a real VS Code: "From DOIs or arXiv ids" against the arXiv stand-in (test/support/
// scholarly-standin.ts, limits at its top; two requests at arXiv's 3 s spacing), into the suite's corpus. Runs
// after extension.suite, so the one paper it adds changes nothing the other tests count.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import type { FetchSummary } from '../../../src/core/sources/index.js';
import { startStandins } from '../../support/scholarly-standin.js';
import { setUserSettings } from './wait.js';

describe('Add Papers (web sources)', function () {
  this.timeout(120_000);

  it('fetches an arXiv e-print by id into the corpus, reports its outcome, and lookups see it', async () => {
    const s = await startStandins();
    s.add({
      kind: 'eprint-tar',
      title: 'Zeolite lattices in tar sources',
      authors: ['Ada Lovelace'],
      year: 2021,
      arxivId: '2101.00001',
      license: 'http://creativecommons.org/licenses/by/4.0/',
      topic: 'zeolite lattices',
    });
    const urls = {
      'sources.arxivUrl': s.arxivUrl,
      'sources.arxivApiUrl': s.arxivApiUrl,
      'sources.openalexUrl': s.openalexUrl,
      'sources.semanticScholarUrl': s.s2Url,
    };
    await setUserSettings('corpusLens', urls);
    try {
      const summary = await vscode.commands.executeCommand<FetchSummary>('corpusLens.addPapers', 'ids', { ids: 'arXiv:2101.00001' });
      assert.ok(summary, 'the command returns its summary');
      assert.deepEqual(
        summary.entries.map((e) => [e.arxivId, e.outcome, e.license]),
        [['2101.00001', 'latex', 'http://creativecommons.org/licenses/by/4.0/']],
      );
      assert.equal(summary.papers, 1);
      assert.deepEqual(s.arxivViolations, []);
      const api = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens')!.exports as CorpusLensApi;
      const { store } = await api.corpus.connection();
      const hits = await store.matchKeyword('zeolite lattices careful design', { count: 5 });
      assert.ok(
        hits.some((h) => h.paper.id === 'arxiv:2101.00001'),
        'the fetched paper is searchable',
      );
    } finally {
      await setUserSettings('corpusLens', Object.fromEntries(Object.keys(urls).map((k) => [k, undefined])));
      await s.close();
    }
  });
});
