// `corpus-lens segment` as users' scripts call it: a black-box contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.ts';

const doc = '\\begin{document}\n\\section{Intro}\nFirst sentence here. Second one~\\cite{k}.\n% comment\n\\end{document}\n';

test('without --at: a JSON array of every sentence with start, end, text, clean and section', async () => {
  const r = await runCli(['segment', '--format', 'latex'], { input: doc });
  assert.equal(r.code, 0, r.stderr);
  const all = JSON.parse(r.stdout);
  assert.deepEqual(all, [
    {
      start: doc.indexOf('First'),
      end: doc.indexOf(' Second'),
      text: 'First sentence here.',
      clean: 'First sentence here.',
      section: 'Intro',
    },
    { start: doc.indexOf('Second'), end: doc.indexOf('\n%'), text: 'Second one~\\cite{k}.', clean: 'Second one.', section: 'Intro' },
  ]);
  for (const s of all) assert.equal(doc.slice(s.start, s.end), s.text);
});

test('with one --at: an object or null; with several: an array in order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-seg-'));
  const file = join(dir, 'p.tex');
  writeFileSync(file, doc);
  const one = await runCli(['segment', '--format', 'latex', '--at', String(doc.indexOf('Second') + 2), file]);
  assert.equal(one.code, 0, one.stderr);
  assert.equal(JSON.parse(one.stdout).clean, 'Second one.');
  const none = await runCli(['segment', '--format', 'latex', '--at', String(doc.indexOf('comment')), file]);
  assert.equal(none.stdout.trim(), 'null');
  const many = await runCli([
    'segment',
    '--format',
    'latex',
    '--at',
    `${doc.indexOf('comment')},${doc.indexOf('First')},${doc.indexOf('\\cite') + 7}`,
    file,
  ]);
  const parsed = JSON.parse(many.stdout);
  assert.equal(parsed.length, 3);
  assert.equal(parsed[0], null);
  assert.equal(parsed[1].clean, 'First sentence here.');
  assert.equal(parsed[2].clean, 'Second one.');
});

test('markdown and text formats', async () => {
  const md = await runCli(['segment', '--format', 'markdown'], { input: '# Title\n\nSee [@key] for **more**. Done.\n' });
  assert.deepEqual(
    JSON.parse(md.stdout).map((s: { clean: string }) => s.clean),
    ['See for more.', 'Done.'],
  );
  const text = await runCli(['segment', '--format', 'text', '--at', '0'], { input: 'Dr. Smith came. He left.' });
  assert.equal(JSON.parse(text.stdout).text, 'Dr. Smith came.');
});

test('bad input exits non-zero with one line on stderr', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cl-seg-'));
  const binary = join(dir, 'paper.pdf');
  writeFileSync(binary, Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe, 0x00, 0x01]));
  const cases: Array<[string[], string | undefined, RegExp]> = [
    [['segment', '--format', 'latex', binary], undefined, /binary/],
    [['segment', '--format', 'docx'], 'x', /unknown format 'docx'/],
    [['segment', '--format', 'latex', '--at', '999'], 'short', /out of range/],
    [['segment', '--format', 'latex', '--at', 'abc'], 'short', /not an integer/],
    [['segment', '--format', 'latex', join(dir, 'missing.tex')], undefined, /no such file/],
    [['segment'], 'x', /--format is required/],
    [['nonsense'], undefined, /unknown command/],
  ];
  for (const [args, input, message] of cases) {
    const r = await runCli(args, { input });
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.equal(r.stdout, '');
  }
});
