// The extension's one command table (src/extension/command-table.ts) against package.json: every contributed command
// has a handler and every public handler is contributed, menus and keybindings name real commands, and commands run
// by id from the code or its links exist. That each id gets a handler is the compiler's part (CommandTable, below);
// that VS Code then has them registered is checked in a real VS Code (test/vscode/suite/extension.suite.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { INTERNAL_COMMANDS, PUBLIC_COMMANDS, type CommandTable } from '../../../src/extension/command-table.js';

const root = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[]; menus?: Record<string, { command?: string }[]>; keybindings?: { command: string }[] };
};
const contributed = pkg.contributes.commands.map((c) => c.command);
const known = new Set<string>([...PUBLIC_COMMANDS, ...INTERNAL_COMMANDS]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('the command table', () => {
  test('package.json contributes exactly the public commands, each once', () => {
    assert.deepEqual([...contributed].sort(), [...PUBLIC_COMMANDS].sort());
    assert.equal(new Set(contributed).size, contributed.length, 'a command contributed twice');
    assert.equal(new Set(PUBLIC_COMMANDS).size, PUBLIC_COMMANDS.length, 'a command listed twice');
  });

  test('internal commands are not contributed, and are not public ones', () => {
    for (const id of INTERNAL_COMMANDS) {
      assert.ok(!contributed.includes(id), `${id} is in package.json`);
      assert.ok(!(PUBLIC_COMMANDS as readonly string[]).includes(id), `${id} is also public`);
    }
  });

  test('menus and keybindings name contributed commands', () => {
    const menuCommands = Object.entries(pkg.contributes.menus ?? {}).flatMap(([menu, items]) =>
      items.filter((i) => i.command).map((i) => [menu, i.command!] as const),
    );
    assert.ok(menuCommands.length > 0, 'package.json has menu items');
    for (const [menu, id] of menuCommands)
      assert.ok(contributed.includes(id), `menu ${menu} names ${id}, which package.json does not contribute`);
    for (const k of pkg.contributes.keybindings ?? [])
      assert.ok(contributed.includes(k.command), `a keybinding names ${k.command}, which package.json does not contribute`);
  });

  test('the commands the code runs by id, sets on items or links to are in the table', () => {
    const files = [...sourceFiles(path.join(root, 'src', 'extension')), ...sourceFiles(path.join(root, 'webview'))];
    const used = new Map<string, string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // executeCommand('corpusLens.x'), item.command = 'corpusLens.x', { command: 'corpusLens.x' }, export const X_COMMAND = 'corpusLens.x'
      for (const m of text.matchAll(/(?:executeCommand\(\s*|command\s*[:=]\s*|_COMMAND\s*=\s*)'(corpusLens\.\w+)'/g))
        used.set(m[1], path.relative(root, file));
    }
    assert.ok(used.size >= 5, `found the command ids the code uses (${[...used.keys()].join(', ')})`);
    for (const [id, file] of used) assert.ok(known.has(id), `${file} runs ${id}, which is not in the command table`);
  });

  test('commands are registered only from the table (shared/register.ts)', () => {
    for (const file of sourceFiles(path.join(root, 'src', 'extension'))) {
      const text = readFileSync(file, 'utf8');
      const rel = path.relative(root, file);
      if (rel === path.join('src', 'extension', 'shared', 'register.ts')) continue;
      assert.ok(!/commands\.registerCommand\(|\bregisterCommand\(/.test(text), `${rel} registers a command outside the table`);
    }
  });
});

// The compiler's half (npm run typecheck): a table without one of the ids, or with an id not in the list, is not a CommandTable.
// @ts-expect-error a table missing a command does not type-check
export const missing: CommandTable = {} as Omit<CommandTable, 'corpusLens.findSimilar'>;
// @ts-expect-error an id that is not a command is not part of the table
export const unknown: Pick<CommandTable, 'corpusLens.notACommand'> = {};
