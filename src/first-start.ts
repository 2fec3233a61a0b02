/** What the first start prints: the Demo merchant, once. */
/**
 * The Demo merchant's key and console login, printed once on the first start against an empty
 * database (only hashes are stored): a block of its own between rules, not a log line, so it is
 * seen among the log lines and no log collector keeps it.
 */
export function demoBlock(demo: { id: string; email: string | null; password: string; keys: { test: string } }, baseUrl: string): string {
  const rule = '─'.repeat(72)
  return [
    '', rule,
    `  Created merchant "Demo" (${demo.id}). Shown this once only:`,
    '',
    `    test key: ${demo.keys.test}`,
    `    console login: ${demo.email} / ${demo.password}`,
    '',
    '  Try it:',
    `    curl -s ${baseUrl}/api/v1/checkout -H 'Authorization: Bearer ${demo.keys.test}' \\`,
    `      -H 'Content-Type: application/json' -d '{"amount":9900,"currency":"CNY"}'`,
    '',
    '  The live key was made too, but is never shown (only its hash is kept): when you go live,',
    `  make one in the console (${baseUrl}/console/live/keys, Create key) or with ADMIN_TOKEN set:`,
    `    ADMIN_TOKEN=… till keys create --merchant ${demo.id} --mode live`,
    '  Lost the test key? The same, with --mode test.',
    `  Docs: ${baseUrl}/docs`,
    rule, '', '',
  ].join('\n')
}
