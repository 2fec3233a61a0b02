/**
 * /console/invitations/{token}: whoever holds an invitation's link sets a password and joins. Outside
 * the signed-in scope; the token in the path is the secret, so the form needs no other.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { TillError } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { acceptInvitation, openInvitation } from '../../services/members.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator, type ConsoleKey } from '../i18n/index.js'
import { BareLayout, Notice } from '../views/layout.js'
import { NewPasswordForm } from '../views/new-password.js'

type TokenParams = { Params: { token: string } }

export const invitationRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  async function page(req: FastifyRequest<TokenParams>, reply: FastifyReply, status: number, error: string | null) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    const inv = await openInvitation(deps, req.params.token)
    const path = `/console/invitations/${req.params.token}`
    reply.header('Referrer-Policy', 'no-referrer')
    return sendHtml(reply, inv ? status : 404, (
      <BareLayout locale={locale} title={t('invite.pageTitle')} langPath={path}>
        <h1>{t('invite.pageTitle')}</h1>
        {!inv ? <Notice kind="error">{t('invite.gone')}</Notice> : (
          <>
            {error && <Notice kind="error">{error}</Notice>}
            <p>{t('invite.intro', { role: t(`role.${inv.role}` as ConsoleKey), email: inv.email })}</p>
            <NewPasswordForm t={t} action={path} email={inv.email} submit={t('invite.submit')} />
          </>
        )}
      </BareLayout>
    ))
  }

  app.get<TokenParams>('/invitations/:token', async (req, reply) => page(req, reply, 200, null))

  app.post<TokenParams>('/invitations/:token', async (req, reply) => {
    try {
      await acceptInvitation(deps, req.params.token, field(req.body, 'password'), req.ip, req.headers['user-agent'])
    } catch (e) {
      if (!(e instanceof TillError) || e.status >= 500) throw e
      return page(req, reply, e.status === 404 ? 404 : 400, e.message)
    }
    return seeOther(reply, '/console/login?notice=joined')
  })
}
