// An OpenAI-compatible embedding endpoint in a real VS Code (issue 30): Index Folder through a model whose size only
// the server knows (the stand-in in test/support/openai-standin.ts answers nomic-embed-text's own 768-d, as Ollama
// does; its vectors are words hashed into that many buckets, so a sentence is near its copy whatever prefix is sent),
// then the same corpus opened with a model of another size. The user's corpus and embedder settings are put back afterwards.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CorpusLensApi } from '../../../src/extension/extension.js';
import type { ViewState } from '../../../webview/protocol.js';
import { hashEmbed } from '../../support/db-embedder.js';
import { startStandin } from '../../support/openai-standin.js';
import { snapshot } from './snapshot.js';
import { setUserSettings, waitFor } from './wait.js';

const workspace = process.env.CORPUS_LENS_TEST_WORKSPACE!;
const SENTENCE = 'Esker ridges in the northern fjords trace the meltwater tunnels beneath the retreating ice sheet.';

describe('An OpenAI-compatible embedding endpoint (issue 30)', function () {
  this.timeout(240_000);
  let api: CorpusLensApi;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => e.packageJSON.name === 'corpus-lens') as vscode.Extension<CorpusLensApi>;
    api = ext.isActive ? ext.exports : await ext.activate();
  });

  async function lookup(editor: vscode.TextEditor, kinds: ViewState['kind'][]): Promise<ViewState> {
    const pos = editor.document.positionAt(editor.document.getText().indexOf('Esker ridges') + 3);
    editor.selection = new vscode.Selection(pos, pos);
    const before = api.panel.current;
    await vscode.commands.executeCommand('corpusLens.findSimilar');
    return waitFor(
      `panel state ${kinds.join('/')}`,
      () => (api.panel.current !== before && kinds.includes(api.panel.current.kind) ? api.panel.current : undefined),
      60_000,
    );
  }

  it('Index Folder with a model of unknown size creates the corpus at the size the endpoint answers; a model of another size is refused at open, naming both sizes and the fix', async () => {
    const sizes: Record<string, number> = { 'nomic-embed-text': 768, 'bge-m3': 1024 };
    const standin = await startStandin({
      modelDims: sizes,
      vectors: async (inputs, model) => inputs.map((t) => [...hashEmbed(t, sizes[model])]),
    });
    const config = vscode.workspace.getConfiguration('corpusLens');
    const keys = ['corpus.backend', 'corpus.path', 'embedding.provider', 'embedding.baseUrl', 'embedding.model', 'embedding.dimensions'];
    const saved = Object.fromEntries(keys.map((k) => [k, config.inspect(k)?.globalValue]));
    const papers = path.join(workspace, 'endpoint-papers');
    mkdirSync(papers, { recursive: true });
    writeFileSync(
      path.join(papers, 'eskers.md'),
      `# Eskers of the Northern Fjords\n\n## Results\n\n${SENTENCE}\n\nThe cores were dated by luminescence.\n`,
    );
    writeFileSync(path.join(papers, 'drumlins.md'), '# Drumlin Fields\n\n## Methods\n\nDrumlin fields were mapped from lidar.\n');
    const corpus = path.join(mkdtempSync(path.join(tmpdir(), 'cl-endpoint-')), 'corpus');
    try {
      await setUserSettings('corpusLens', {
        'corpus.backend': 'embedded',
        'corpus.path': corpus,
        'embedding.provider': 'openai',
        'embedding.baseUrl': standin.baseURL,
        'embedding.model': 'nomic-embed-text',
        'embedding.dimensions': undefined,
      });
      await vscode.commands.executeCommand('corpusLens.indexFolder', vscode.Uri.file(papers));
      const c = await api.corpus.connection();
      const meta = await c.store.meta();
      assert.deepEqual(
        { model: meta?.model, dimensions: meta?.dimensions, papers: c.papers },
        { model: 'openai:nomic-embed-text', dimensions: 768, papers: 2 },
        'the corpus records the model and the size the endpoint answered',
      );
      // The 768 came from the server: no request named a size.
      assert.ok(standin.requests.length > 0);
      assert.deepEqual(
        standin.requests.filter((r) => r.body?.dimensions !== undefined || r.body?.model !== 'nomic-embed-text'),
        [],
      );

      await vscode.commands.executeCommand('corpusLens.openPanel');
      const file = path.join(workspace, 'endpoint-draft.md');
      writeFileSync(file, `# Draft\n\n${SENTENCE}\n`);
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file), vscode.ViewColumn.One);
      const found = await lookup(editor, ['results', 'error', 'noResults']);
      assert.equal(found.kind, 'results', JSON.stringify(found).slice(0, 300));
      if (found.kind === 'results') {
        assert.match(found.embedder, /nomic-embed-text/);
        assert.equal(found.hits[0]?.paper.title, 'Eskers of the Northern Fjords', found.hits.map((h) => h.sentence.text).join(' | '));
      }

      // The same corpus with a model of another size: one message at open, naming both sizes and what to do.
      await setUserSettings('corpusLens', { 'embedding.model': 'bge-m3' });
      await assert.rejects(api.corpus.connection(), (err: Error) => {
        assert.match(err.message, /768-d vectors from openai:nomic-embed-text; this model \(openai:bge-m3\) gives 1024-d vectors/);
        assert.match(err.message, /Use the corpus's model/);
        return true;
      });
      const refused = await lookup(editor, ['error', 'results']);
      assert.equal(refused.kind, 'error', JSON.stringify(refused).slice(0, 300));
      if (refused.kind === 'error') assert.match(refused.message, /768-d .*1024-d .*Use the corpus's model/);
      const screen = (await snapshot('endpoint-size-mismatch')).join('\n');
      assert.match(screen, /gives 1024-d vectors/, 'the panel shows the message');
    } finally {
      await setUserSettings('corpusLens', saved);
      await standin.close();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
