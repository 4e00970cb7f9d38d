// ESLint (flat config): the recommended JavaScript and TypeScript rule sets (not the type-checked ones: tsc, strict
// with noUnusedLocals, already checks types in npm run typecheck, and type-aware linting of every file would double
// its time on CI's two cores). Rules are turned off only where they fight something the code does on purpose.
// Layout is Prettier's (npm run format): these rule sets hold no layout rules, so nothing here fights it and
// eslint-config-prettier is not needed.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', '.vscode-test/', '.test-artifacts/', '.bench/', '.corpus-lens/', 'media/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Control characters in patterns are the point where they appear: sniffing binary files by NUL, keeping a
      // BibTeX field on one line, the review's \u0001 placeholders, the fuzzers' hostile input.
      'no-control-regex': 'off',
      // tsc reports unused locals and parameters (noUnusedLocals/noUnusedParameters, `_`-prefixed ones exempt, as
      // the code uses them to drop fields from a rest copy); a second reporter with other exemptions only disagrees.
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  {
    files: ['webview/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // CommonJS by necessity: a probe preloaded with `node -r`.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Mocha's globals must exist before the suites load: they are required after 'pre-require' is emitted, which
    // hoisted imports would precede.
    files: ['test/vscode/suite/index.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
