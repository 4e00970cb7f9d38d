// npm test runs this file alone: it SIGKILLs an ingest mid-run from its progress lines.
// The ingest pipeline end to end through `corpus-lens ingest`: idempotent, and resumable after a kill.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/core/store/index.ts';
import { runCli } from '../support/cli.ts';
import { projectRoot } from '../support/eval.ts';

/** A folder of `n` Markdown papers of 50 distinct sentences each, plus a broken PDF. */
function paperFolder(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'cl-ingest-papers-'));
  for (let p = 0; p < n; p++) {
    const sentences = Array.from({ length: 50 }, (_, i) => `Paper ${p} reports finding number ${i} about topic ${(p * 7 + i) % 13}.`);
    const body = [0, 1, 2, 3, 4].map((s) => `## Section ${s}\n\n${sentences.slice(s * 10, s * 10 + 10).join(' ')}`).join('\n\n');
    writeFileSync(
      join(dir, `paper-${String(p).padStart(3, '0')}.md`),
      `---\ntitle: "Generated Paper ${p}"\nyear: ${2000 + (p % 20)}\n---\n\n${body}\n`,
    );
  }
  writeFileSync(join(dir, 'broken.pdf'), '%PDF-1.4\nthis is not really a PDF\n');
  return dir;
}

async function corpusRows(db: string): Promise<{ papers: number; sentences: number; ids: string[] }> {
  const store = await openStore(db);
  try {
    const counts = await store.counts();
    const ids = (await store.sources()).map((s) => s.id).sort();
    return { ...counts, ids };
  } finally {
    await store.close();
  }
}

test('ingest reports per-file failures, and a second run does no work', async () => {
  const folder = paperFolder(6);
  const db = join(mkdtempSync(join(tmpdir(), 'cl-ingest-db-')), 'corpus');
  const first = await runCli(['ingest', '--db', db, '--json', folder]);
  assert.equal(first.code, 0, first.stderr);
  const s1 = JSON.parse(first.stdout);
  assert.equal(s1.papers, 6);
  assert.equal(s1.sentences, 300);
  assert.equal(s1.failed.length, 1);
  assert.match(s1.failed[0].file, /broken\.pdf$/);
  const second = await runCli(['ingest', '--db', db, '--json', folder]);
  const s2 = JSON.parse(second.stdout);
  assert.deepEqual({ papers: s2.papers, sentences: s2.sentences, skipped: s2.skipped }, { papers: 0, sentences: 0, skipped: 6 });
});

test('an ingest killed mid-run and run again ends with the same corpus as an uninterrupted run', { timeout: 300_000 }, async (t) => {
  const folder = paperFolder(160);
  const base = mkdtempSync(join(tmpdir(), 'cl-ingest-kill-'));
  t.after(() => [folder, base].forEach((d) => rmSync(d, { recursive: true, force: true })));
  const whole = join(base, 'whole');
  const resumed = join(base, 'resumed');
  mkdirSync(base, { recursive: true });
  const uninterrupted = await runCli(['ingest', '--db', whole, '--json', folder]);
  assert.equal(uninterrupted.code, 0, uninterrupted.stderr);

  // Kill the second run with SIGKILL as soon as it has written some papers but not all.
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'cli.js'), 'ingest', '--db', resumed, '--progress', folder], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let buffered = '';
  const killedAt = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      buffered += d;
      for (const line of buffered.split('\n').slice(0, -1)) {
        const p = JSON.parse(line) as { papers: number; filesDone: number; filesTotal: number };
        if (p.papers > 0 && p.filesDone < p.filesTotal - 20) {
          child.kill('SIGKILL');
          resolve(p.papers);
          return;
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    });
    child.on('exit', () => reject(new Error('the run ended before it could be killed mid-way')));
  });
  await new Promise((r) => child.once('exit', r));
  const partial = await corpusRows(resumed);
  assert.ok(partial.papers >= killedAt && partial.papers < 160, `killed with ${partial.papers} of 160 papers written`);
  assert.equal(partial.sentences, partial.papers * 50, 'every written paper is whole');

  const again = await runCli(['ingest', '--db', resumed, '--json', folder]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).skipped, partial.papers, 'papers already written are not redone');
  const a = await corpusRows(whole);
  const b = await corpusRows(resumed);
  assert.deepEqual(b, a, 'same papers, same sentence count, no duplicates');
  assert.equal(a.papers, 160);
  assert.equal(a.sentences, 160 * 50);
});
