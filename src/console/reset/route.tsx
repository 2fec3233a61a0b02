/**
 * /console/reset/{token}: whoever holds a password reset link sets the member's new password. Outside
 * the signed-in scope; the token in the path is the secret, so the form needs no other.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { TillError } from '../../domain/errors.js'
import type { Deps } from '../../services/deps.js'
import { openReset, useReset } from '../../services/password-reset.js'
import { seeOther, sendHtml } from '../../web/html.js'
import { pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator } from '../i18n/index.js'
import { BareLayout, Notice } from '../views/layout.js'
import { NewPasswordForm } from '../views/new-password.js'

type TokenParams = { Params: { token: string } }

export const resetRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  async function page(req: FastifyRequest<TokenParams>, reply: FastifyReply, status: number, error: string | null) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    const member = await openReset(deps, req.params.token)
    const path = `/console/reset/${req.params.token}`
    reply.header('Referrer-Policy', 'no-referrer')
    return sendHtml(reply, member ? status : 404, (
      <BareLayout locale={locale} title={t('reset.pageTitle')} langPath={path}>
        <h1>{t('reset.pageTitle')}</h1>
        {!member ? <Notice kind="error">{t('reset.gone')}</Notice> : (
          <>
            {error && <Notice kind="error">{error}</Notice>}
            <p>{t('reset.intro', { email: member.email })}</p>
            <NewPasswordForm t={t} action={path} email={member.email} submit={t('reset.submit')} />
          </>
        )}
        {!member && <p><a href="/console/forgot">{t('login.forgot')}</a></p>}
      </BareLayout>
    ))
  }

  app.get<TokenParams>('/reset/:token', async (req, reply) => page(req, reply, 200, null))

  app.post<TokenParams>('/reset/:token', async (req, reply) => {
    try {
      await useReset(deps, req.params.token, field(req.body, 'password'), req.ip, req.headers['user-agent'])
    } catch (e) {
      if (!(e instanceof TillError) || e.status >= 500) throw e
      return page(req, reply, e.status === 404 ? 404 : 400, e.message)
    }
    return seeOther(reply, '/console/login?notice=password-reset')
  })
}
