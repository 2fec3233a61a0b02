/** AES-256-GCM with a fresh 12-byte nonce per box; the AAD binds a box to the row it belongs to. */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'

const VERSION = 'v1'

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes')
  }

  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce)
    cipher.setAAD(Buffer.from(aad))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return `${VERSION}:${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64')}`
  }

  open(box: string, aad: string): string {
    const [version, b64] = box.split(':')
    if (version !== VERSION || !b64) throw new Error('unknown secret box format')
    const raw = Buffer.from(b64, 'base64')
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12))
    decipher.setAAD(Buffer.from(aad))
    decipher.setAuthTag(raw.subarray(raw.length - 16))
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8')
  }

  /** A key for another purpose, derived so that one secret serves them all without reuse. */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.key).update(purpose).digest()
  }
}

export function parseSecretsKey(value: string): Buffer {
  const v = value.trim()
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex')
  const b = Buffer.from(v, 'base64')
  if (b.length === 32) return b
  throw new Error('SECRETS_KEY must be 32 bytes, as 64 hex characters or base64')
}

/** SECRETS_KEY, or a key generated once into DATA_DIR/secrets.key (mode 0600). */
export async function loadSecretsKey(configured: string | null, dataDir: string): Promise<{ key: Buffer; generated: boolean }> {
  if (configured) return { key: parseSecretsKey(configured), generated: false }
  const file = path.join(dataDir, 'secrets.key')
  if (existsSync(file)) return { key: parseSecretsKey(await fs.readFile(file, 'utf8')), generated: false }
  await fs.mkdir(dataDir, { recursive: true })
  const key = randomBytes(32)
  await fs.writeFile(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' }).catch(async (e) => {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  })
  return { key: parseSecretsKey(await fs.readFile(file, 'utf8')), generated: true }
}
