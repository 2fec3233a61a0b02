/**
 * Reads command lines (a JSON array of argv arrays, after `till`) on stdin and prints, as JSON, the
 * usage error each gets from the command line's parser (null when it parses). A process of its own:
 * the CLI's modules import the Node client under the till-source condition
 * (test/docs/readme-snippets.test.ts).
 */
import { parseCommand } from '../../src/cli/args.js'
import { GROUPS } from '../../src/cli/groups.js'

function problem([name, sub, ...rest]: string[]): string | null {
  if (name === 'start') return sub === undefined ? null : 'till start takes no arguments'
  const group = GROUPS.find((g) => g.name === name)
  if (!group) return `no command ${name}`
  const cmd = sub !== undefined && Object.hasOwn(group.commands, sub) ? group.commands[sub] : undefined
  if (!cmd) return `no subcommand ${sub}`
  if (rest.includes('--url')) return '--url is deprecated: --till-url'
  try {
    parseCommand(cmd, rest)
    return null
  } catch (e) {
    return (e as Error).message
  }
}

const chunks: Buffer[] = []
for await (const c of process.stdin) chunks.push(c as Buffer)
const argvs = JSON.parse(Buffer.concat(chunks).toString('utf8')) as string[][]
process.stdout.write(JSON.stringify(argvs.map(problem)))
