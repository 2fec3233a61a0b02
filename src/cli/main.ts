/**
 * `till <group> <command>`: the operator's command line. bin/till.mjs runs `till start` itself
 * and everything else here (`till fake …` in ./fake.ts). Exit codes: 0 done, 1 Till refused or
 * could not be reached, 2 the command line is wrong (a usage error, with the way to its help).
 */
import { readFileSync } from 'node:fs'
import { CliError, parseCommand, usageError, wantsHelp, type Group } from './args.js'
import { runBackup } from './backup.js'
import { runFake } from './fake.js'
import { COMMANDS, GROUPS } from './groups.js'
import { PROVIDERS } from '../providers/index.js'

const START_HELP = `usage: till start

Runs Till in the foreground (the same as \`npm start\`), configured by its environment: PORT, HOST,
BASE_URL, DATABASE_URL (absent: an embedded PostgreSQL in DATA_DIR), ADMIN_TOKEN, SECRETS_KEY, …
(see the README's Configuration). SIGTERM or Ctrl-C stops it cleanly.

example:
  ADMIN_TOKEN=$(openssl rand -hex 24) till start`

const HELP = `usage: till <command> [<subcommand>] [options]

  start        run Till in the foreground
${GROUPS.map((g) => `  ${g.name.padEnd(11)}  ${g.summary}\n  ${''.padEnd(11)}  ${Object.keys(g.commands).join(', ')}`).join('\n')}
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(11)}  ${c.summary}`).join('\n')}
  backup       copy the embedded database while Till runs: till backup --out FILE
  restore      put a backup back into DATA_DIR (Till stopped): till restore FILE
  fake         local provider fakes for offline tests: till fake ${PROVIDERS.map((p) => p.id).join('|')} --help

Every other command talks to a running Till over HTTP, so it works with any database:
  TILL_URL      Till's address (default http://localhost:8080), or --till-url
  ADMIN_TOKEN   for merchants, keys, providers, reconcile and activity (the admin API), or --admin-token
  TILL_API_KEY  a merchant's secret key for sessions, refunds, events, webhooks and trigger, or --api-key

Run \`till <command> --help\` for a command's options and examples.

examples:
  till merchants create --name Acme --json
  till keys list --merchant mer_2b8Zk…
  TILL_API_KEY=sk_test_… till webhooks listen --forward-to localhost:3000/hook
  TILL_API_KEY=sk_test_… till trigger payment.succeeded`

const groupHelp = (g: Group) => `usage: till ${g.name} <${Object.keys(g.commands).join('|')}> [options]

${Object.entries(g.commands).map(([name, c]) => `  ${name.padEnd(Math.max(9, ...Object.keys(g.commands).map((n) => n.length + 2)))}${c.summary}`).join('\n')}

Run \`till ${g.name} <subcommand> --help\` for its options and examples.`

const out = (text: string) => process.stdout.write(`${text}\n`)

/** Runs one command line; returns the exit code. Messages go to stderr, results to stdout. */
export async function run(argv: string[]): Promise<number> {
  let where = 'till'
  try {
    const [name, sub, ...rest] = argv
    if (name === undefined) throw usageError('missing command')
    if (name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' ? GROUPS.find((g) => g.name === sub) : undefined
      out(topic ? groupHelp(topic) : HELP)
      return 0
    }
    if (name === '--version' || name === '-v') {
      out(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version)
      return 0
    }
    if (name === 'fake') return await runFake(argv.slice(1))
    if (name === 'backup' || name === 'restore') {
      where = `till ${name}`
      return await runBackup(name, argv.slice(1))
    }
    if (name === 'start' || name === 'serve') {
      // The launcher starts the service when there are no arguments; here are only --help and mistakes.
      where = `till ${name}`
      if (wantsHelp(argv.slice(1))) return out(START_HELP), 0
      throw usageError(`takes no arguments, got ${JSON.stringify(argv[1])}`)
    }
    const single = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
    if (single) {
      where = `till ${name}`
      if (wantsHelp(argv.slice(1))) return out(single.help), 0
      await single.run(parseCommand(single, argv.slice(1)))
      return 0
    }
    const group = GROUPS.find((g) => g.name === name)
    if (!group) throw usageError(`unknown command ${JSON.stringify(name)}`)
    where = `till ${group.name}`
    if (sub === undefined || sub === '--help' || sub === '-h') {
      if (sub === undefined) throw usageError(`missing subcommand: ${Object.keys(group.commands).join(', ')}`)
      out(groupHelp(group))
      return 0
    }
    const cmd = Object.hasOwn(group.commands, sub) ? group.commands[sub] : undefined
    if (!cmd) throw usageError(`unknown subcommand ${JSON.stringify(sub)} (${Object.keys(group.commands).join(', ')})`)
    where = `till ${group.name} ${sub}`
    if (wantsHelp(rest)) {
      out(cmd.help)
      return 0
    }
    await cmd.run(parseCommand(cmd, rest))
    return 0
  } catch (e) {
    const err = e instanceof CliError ? e : new CliError(e instanceof Error ? e.message : String(e))
    if (err.exitCode === 2) {
      process.stderr.write(`${where}: ${err.message}\nRun \`${where} --help\` for usage.\n`)
    } else {
      process.stderr.write(`error: ${err.message}\n${err.hint ? `hint: ${err.hint}\n` : ''}`)
    }
    return err.exitCode
  }
}

run(process.argv.slice(2)).then((code) => process.exit(code))
