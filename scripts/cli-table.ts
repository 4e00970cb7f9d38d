// Writes the README's CLI table from the CLI's option schema (src/cli/spec.ts) between the markers
// <!-- cli-table:start --> and <!-- cli-table:end -->: `npm run docs:cli`. With --check it only says whether the
// table is current (exit 1 when not); test/unit/cli/options.test.ts holds the same.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCliTable } from '../src/cli/options.ts';
import { commandSpecs } from '../src/cli/spec.ts';

const file = join(__dirname, '..', 'README.md');
const readme = readFileSync(file, 'utf8');
const next = withCliTable(readme, commandSpecs);
if (process.argv.includes('--check')) {
  if (next !== readme) {
    process.stderr.write('README.md: the CLI table is out of date: run npm run docs:cli\n');
    process.exitCode = 1;
  }
} else if (next !== readme) {
  writeFileSync(file, next);
  process.stdout.write('README.md: CLI table written\n');
}
