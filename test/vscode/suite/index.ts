// Runs inside VS Code's extension host: a mocha suite whose result is also written to a summary file,
// because code-server forwards test output to the browser console with unexpanded placeholders.
import { writeFileSync } from 'node:fs';
import Mocha from 'mocha';

/** Which suite to run, fixed by the harness when it bundles this file. */
declare const SUITE: string;

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false });
  // A local run of some tests only (the harness passes the environment through): CORPUS_LENS_TEST_GREP=<title part>.
  if (process.env.CORPUS_LENS_TEST_GREP) mocha.grep(process.env.CORPUS_LENS_TEST_GREP);
  mocha.suite.emit('pre-require', globalThis, 'suite', mocha);
  if (SUITE === 'vsix.suite') require('./vsix.suite');
  else if (SUITE === 'move-corpus.suite') require('./move-corpus.suite');
  else if (SUITE === 'cite-check.suite')
    require('./cite-check.suite'); // its own corpus (samples + a PDF with pages)
  else if (SUITE === 'faces.suite')
    require('./faces.suite'); // alone, while working on it; it also runs with the rest
  else if (SUITE === 'flows.suite')
    require('./flows.suite'); // alone, while working on it; it also runs with the rest
  else {
    require('./extension.suite');
    require('./add-papers.suite');
    require('./first-hour.suite');
    require('./zotero.suite');
    require('./flows.suite');
    require('./ask.suite');
    require('./writing-flows.suite');
    require('./lm.suite');
    require('./health.suite');
    require('./endpoint.suite');
    require('./faces.suite');
  }
  const failures: Array<{ title: string; error: string }> = [];
  let passed = 0;
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', () => passed++);
    runner.on('fail', (test, err: Error) => failures.push({ title: test.fullTitle(), error: String(err?.stack ?? err) }));
  });
  const file = process.env.CORPUS_LENS_TEST_SUMMARY;
  if (file) writeFileSync(file, JSON.stringify({ passed, failed: failures.length, failures }, null, 2));
  if (failures.length) throw new Error(`${failures.length} extension-host test(s) failed`);
}
