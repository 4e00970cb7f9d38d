// Credentials never reach a message or a log line: one redaction (core/redact.ts) tested on every URL form the
// project prints, and end to end on the CLI's error lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeThrown, errorText, redactSecrets } from '../../src/core/redact.ts';
import { StoreError } from '../../src/core/store/types.ts';
import { redactUrl as redact } from '../../src/core/store/backends/postgres.ts';
import { runCli } from '../support/cli.ts';

const SECRET = 'S3cr3tP4ss';

const FORMS: Array<[string, string]> = [
  [`postgres://postgres:${SECRET}@db.example.org:5432/corpus`, 'postgres://postgres:***@db.example.org:5432/corpus'],
  [`postgresql://u:${SECRET}@h/db?sslmode=require`, 'postgresql://u:***@h/db?sslmode=require'],
  [`postgres://u:${encodeURIComponent(SECRET + '@/:')}@h/db`, 'postgres://u:***@h/db'],
  [`supabase:https://abc.supabase.co/rest/v1/?apikey=${SECRET}`, 'supabase:https://abc.supabase.co/rest/v1/?apikey=***'],
  [`supabase:https://user:${SECRET}@abc.supabase.co`, 'supabase:https://user:***@abc.supabase.co'],
  [`https://me:${SECRET}@llm.example.org/v1`, 'https://me:***@llm.example.org/v1'],
  [`http://${SECRET}${SECRET}@llm.example.org/v1`, 'http://***@llm.example.org/v1'],
  [`https://api.example.org/v1/embeddings?key=${SECRET}&model=m`, 'https://api.example.org/v1/embeddings?key=***&model=m'],
  [`https://x.org/a?model=m&access_token=${SECRET}#token=${SECRET}`, 'https://x.org/a?model=m&access_token=***#token=***'],
  [`https://x.org/a?Api-Key=${SECRET}`, 'https://x.org/a?Api-Key=***'],
  [`Authorization: Bearer ${SECRET}xyz`, 'Authorization: Bearer ***'],
  [`OPENAI_API_KEY=sk-proj-${SECRET}abcdef`, 'OPENAI_API_KEY=sk-***'],
];

for (const [input, expected] of FORMS) {
  test(`redacts ${expected}`, () => {
    const inText = `cannot reach the corpus at ${input}: ECONNREFUSED`;
    const out = redactSecrets(inText);
    assert.equal(out, `cannot reach the corpus at ${expected}: ECONNREFUSED`);
    assert.ok(!out.includes(SECRET));
  });
}

test('text without credentials is unchanged (paths, plain URLs, a password-less user)', () => {
  for (const s of [
    '/home/ann/corpus',
    'https://doi.org/10.1000/x?foo=bar',
    'postgres://ann@localhost/db',
    'the key idea is token passing',
  ]) {
    assert.equal(redactSecrets(s), s);
  }
});

test('StoreError and the postgres helper redact; errorText never says [object Object]', () => {
  assert.ok(!new StoreError(`the corpus at postgres://a:${SECRET}@h/db is empty`).message.includes(SECRET));
  assert.ok(!redact(`postgres://a:${SECRET}@h/db`).includes(SECRET));
  assert.equal(describeThrown({ message: 'disk full' }), 'disk full');
  assert.equal(describeThrown({ code: 'ENOSPC', errno: 28 }), '{"code":"ENOSPC","errno":28}');
  assert.notEqual(describeThrown({}), '[object Object]');
  assert.ok(!errorText(new Error(`at https://u:${SECRET}@h`)).includes(SECRET));
});

test('the CLI never prints a password or key from --db, --llm-base-url or OPENAI_BASE_URL', async () => {
  const runs = [
    runCli(['query', '--db', `postgres://postgres:${SECRET}@127.0.0.1:1/corpus`, 'a sentence']),
    runCli(['query', '--db', `supabase:https://u:${SECRET}@127.0.0.1:1/?apikey=${SECRET}`, 'a sentence'], { env: { SUPABASE_KEY: 'k' } }),
    runCli([
      'review',
      '--db',
      `postgres://postgres:${SECRET}@127.0.0.1:1/corpus`,
      '--topic',
      't',
      '--llm-base-url',
      `http://u:${SECRET}@127.0.0.1:1/v1`,
    ]),
  ];
  for (const r of await Promise.all(runs)) {
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^corpus-lens: /);
    assert.ok(!r.stderr.includes(SECRET), r.stderr);
    assert.ok(!r.stdout.includes(SECRET), r.stdout);
  }
});
