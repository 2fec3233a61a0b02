/** The security headers of every HTML page Till serves. */
import type { FastifyReply } from 'fastify'

/**
 * No inline script or style at all (our scripts are files from 'self', so no nonce is needed).
 * `connect-src 'self'` lets the checkout's script wait on /c/<id>/status while a QR code is shown.
 * `form-action` also governs the redirects after a form post: Chromium blocks POST → 303 relay →
 * 303 successUrl unless successUrl's origin is listed, so the checkout page lists it.
 */
export function contentSecurityPolicy(formTargets: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action ${["'self'", ...formTargets].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ')
}

export function setPageHeaders(reply: FastifyReply, formTargets: string[] = []) {
  reply.header('Content-Security-Policy', contentSecurityPolicy(formTargets))
  reply.header('X-Frame-Options', 'DENY')
  reply.header('Referrer-Policy', 'no-referrer')
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()')
}

/** The default headers, and never cached: every page answer starts with them (an error page again). */
export function setDefaultPageHeaders(reply: FastifyReply) {
  setPageHeaders(reply)
  reply.header('Cache-Control', 'no-store')
}
