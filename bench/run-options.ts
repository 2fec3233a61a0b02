/** `--name value` or `--name=value` options after the bench names (`npm run bench -- memory --soak-minutes 2`). */
const argv = process.argv.slice(2)

export function option(name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1]
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3)
  }
  return undefined
}

/** The bench names: every argument that is neither an option nor an option's value. */
export function names(): string[] {
  return argv.filter((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1].startsWith('--') && !argv[i - 1].includes('=')))
}
