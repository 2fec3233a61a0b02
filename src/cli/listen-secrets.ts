/**
 * `till webhooks listen`'s signing secret, kept per machine, Till and receiver URL (as Stripe's CLI
 * keeps one per account), so an app configured with it needs no restart on the next listen. Kept
 * owner-only in $XDG_CONFIG_HOME/till (~/.config/till); `--secret` overrides it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const LOCAL_SECRET = /^whsec_[0-9A-Za-z]{16,}$/

export const listenSecretsFile = (env: NodeJS.ProcessEnv = process.env) =>
  path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'till', 'listen-secrets.json')

/** The secret kept for `key`, or a fresh one kept from now on (used for this run alone where the file cannot be written). */
export function keptSecret(key: string, fresh: () => string, file = listenSecretsFile()): string {
  let kept: Record<string, unknown> = {}
  try {
    kept = JSON.parse(readFileSync(file, 'utf8'))
  } catch {}
  const found = kept[key]
  if (typeof found === 'string' && LOCAL_SECRET.test(found)) return found
  const secret = fresh()
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    writeFileSync(file, JSON.stringify({ ...kept, [key]: secret }, null, 2), { mode: 0o600 })
  } catch {}
  return secret
}
