/**
 * What customers see of a merchant on the hosted pages (console Settings): a display name, a brand
 * colour, a support email, a support page (the way back from an unpaid checkout that names none)
 * and a logo served by Till itself (the pages allow images from 'self' only).
 */
import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { InvalidField, NotFound } from '../domain/errors.js'
import type { Executor } from '../store/db.js'
import { merchantLogos, merchants } from '../store/schema.js'
import type { Deps } from './deps.js'

export const MAX_LOGO_BYTES = 64 * 1024
const COLOUR = /^#[0-9a-fA-F]{6}$/
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** Raster formats only, recognised by their first bytes (an SVG could carry script). */
const LOGO_TYPES: [string, (b: Buffer) => boolean][] = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
]

export interface Branding {
  name: string
  brandColor: string | null
  supportEmail: string | null
  supportUrl: string | null
  logoUrl: string | null
  /** The merchant's zone (console Settings): the pages write times in it until the buyer's browser rewrites them in its own. */
  timeZone: string
}

export function brandingOf(m: typeof merchants.$inferSelect): Branding {
  return {
    name: m.displayName ?? m.name,
    brandColor: m.brandColor,
    supportEmail: m.supportEmail,
    supportUrl: m.supportUrl,
    logoUrl: m.logoHash ? `/logos/${m.id}/${m.logoHash}` : null,
    timeZone: m.timeZone,
  }
}

export async function brandingFor(tx: Executor, merchantId: string): Promise<Branding> {
  const [m] = await tx.select().from(merchants).where(eq(merchants.id, merchantId))
  if (!m) throw new NotFound()
  return brandingOf(m)
}

/**
 * A page customers are sent to: https only (it is shown in live mode), and nothing a link could run.
 * Kept as the parsed URL's href, never the raw text (which may carry CR or LF the parser dropped).
 */
function checkSupportUrl(value: string): string {
  let url: URL | null = null
  try {
    url = new URL(value)
  } catch {}
  if (!url || url.protocol !== 'https:' || value.length > 2048 || url.href.length > 2048) throw new InvalidField('supportUrl', 'must be an https address such as https://shop.example/help')
  return url.href
}

export interface SettingsInput {
  displayName: string
  brandColor: string
  supportEmail: string
  supportUrl: string
  logo?: { bytes: Buffer } | null
  removeLogo?: boolean
}

export async function updateSettings(deps: Deps, merchantId: string, input: SettingsInput) {
  const displayName = input.displayName.trim()
  if (displayName.length > 100) throw new InvalidField('displayName', 'must be at most 100 characters')
  const brandColor = input.brandColor.trim()
  if (brandColor && !COLOUR.test(brandColor)) throw new InvalidField('brandColor', 'must be a colour such as #1a7f5a')
  const supportEmail = input.supportEmail.trim()
  if (supportEmail && (!EMAIL.test(supportEmail) || supportEmail.length > 254)) throw new InvalidField('supportEmail', 'must be an email address')
  const supportUrl = input.supportUrl.trim() && checkSupportUrl(input.supportUrl.trim())
  let logo: { type: string; data: string; hash: string } | null = null
  if (input.logo && input.logo.bytes.length > 0) {
    const b = input.logo.bytes
    if (b.length > MAX_LOGO_BYTES) throw new InvalidField('logo', 'must be at most 64 KiB')
    const type = LOGO_TYPES.find(([, is]) => is(b))?.[0]
    if (!type) throw new InvalidField('logo', 'must be a PNG, JPEG or WebP image')
    logo = { type, data: b.toString('base64'), hash: createHash('sha256').update(b).digest('hex').slice(0, 16) }
  }
  const now = deps.clock()
  await deps.db.transaction(async (tx) => {
    const patch: Partial<typeof merchants.$inferInsert> = {
      displayName: displayName || null,
      brandColor: brandColor ? brandColor.toLowerCase() : null,
      supportEmail: supportEmail || null,
      supportUrl: supportUrl || null,
    }
    if (logo) {
      await tx.insert(merchantLogos).values({ merchantId, contentType: logo.type, data: logo.data, updatedAt: now })
        .onConflictDoUpdate({ target: merchantLogos.merchantId, set: { contentType: logo.type, data: logo.data, updatedAt: now } })
      patch.logoHash = logo.hash
    } else if (input.removeLogo) {
      await tx.delete(merchantLogos).where(eq(merchantLogos.merchantId, merchantId))
      patch.logoHash = null
    }
    await tx.update(merchants).set(patch).where(eq(merchants.id, merchantId))
  })
}

/** The logo's bytes for /logos/<merchant>/<hash>; null when there is none or the hash is not the current one. */
export async function loadLogo(deps: Deps, merchantId: string, hash: string) {
  const [r] = await deps.db.select({ hash: merchants.logoHash, type: merchantLogos.contentType, data: merchantLogos.data })
    .from(merchants).innerJoin(merchantLogos, eq(merchantLogos.merchantId, merchants.id)).where(eq(merchants.id, merchantId))
  if (!r || r.hash !== hash) return null
  return { type: r.type, body: Buffer.from(r.data, 'base64') }
}
