/**
 * A one-time link that sets a member's password (an invitation's, a password reset's): its page and
 * its form's post. Outside the signed-in scope; the token in the path is the secret, so the form
 * needs no other.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { TillError } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator, type ConsoleKey, type ConsoleT } from '../i18n/index.js'
import { BareLayout, Notice } from '../views/layout.js'
import { NewPasswordForm } from '../views/new-password.js'

type TokenParams = { Params: { token: string } }

export interface PasswordLink<T extends { email: string }> {
  /** Under /console: `/invitations` or `/reset`. */
  prefix: string
  /** What the link is for, while it still works. */
  open(token: string): Promise<T | null>
  /** Sets the password (throws a TillError for a bad password or a dead link). */
  use(token: string, password: string, ip: string, userAgent: string | undefined): Promise<unknown>
  title: ConsoleKey
  gone: ConsoleKey
  submit: ConsoleKey
  intro(t: ConsoleT, found: T): string
  /** The sign-in page's notice once the password is set. */
  notice: string
  /** Where a dead link's page points the member. */
  goneLink?: { href: string; text: ConsoleKey }
}

export const passwordLinkRoutes = <T extends { email: string }>(l: PasswordLink<T>): FastifyPluginAsync => async (app) => {
  async function page(req: FastifyRequest<TokenParams>, reply: FastifyReply, status: number, error: string | null) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    const found = await l.open(req.params.token)
    const path = `/console${l.prefix}/${req.params.token}`
    reply.header('Referrer-Policy', 'no-referrer')
    return sendHtml(reply, found ? status : 404, (
      <BareLayout locale={locale} title={t(l.title)} langPath={path}>
        <h1>{t(l.title)}</h1>
        {!found ? <Notice kind="error">{t(l.gone)}</Notice> : (
          <>
            {error && <Notice kind="error">{error}</Notice>}
            <p>{l.intro(t, found)}</p>
            <NewPasswordForm t={t} action={path} email={found.email} submit={t(l.submit)} />
          </>
        )}
        {!found && l.goneLink && <p><a href={l.goneLink.href}>{t(l.goneLink.text)}</a></p>}
      </BareLayout>
    ))
  }

  app.get<TokenParams>(`${l.prefix}/:token`, async (req, reply) => page(req, reply, 200, null))

  app.post<TokenParams>(`${l.prefix}/:token`, async (req, reply) => {
    try {
      await l.use(req.params.token, field(req.body, 'password'), req.ip, req.headers['user-agent'])
    } catch (e) {
      if (!(e instanceof TillError) || e.status >= 500) throw e
      return page(req, reply, e.status === 404 ? 404 : 400, e.message)
    }
    return seeOther(reply, `/console/login?notice=${l.notice}`)
  })
}
