/**
 * /console/forgot: "Forgot password?". The same page, with the same status, whether or not a member
 * has the address given; outside the signed-in scope, so its form carries the sign-in form's guard.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Deps } from '../../services/deps.js'
import { requestReset } from '../../services/password-reset.js'
import { sendHtml } from '../../web/html.js'
import { pageLocale } from '../../web/locale.js'
import { field } from '../context.js'
import { consoleTranslator, type ConsoleKey } from '../i18n/index.js'
import { signedOutForm } from '../login/form-token.js'
import { BareLayout, Notice } from '../views/layout.js'

export const forgotRoutes = (deps: Deps): FastifyPluginAsync => async (app) => {
  const form = signedOutForm(deps)
  const mails = deps.config.smtpUrl !== null

  function page(req: FastifyRequest, reply: FastifyReply, status: number, o: { notice?: ConsoleKey; error?: ConsoleKey } = {}) {
    const locale = pageLocale(req, reply)
    const t = consoleTranslator(locale)
    return sendHtml(reply, status, (
      <BareLayout locale={locale} title={t('forgot.pageTitle')} langPath="/console/forgot">
        <h1>{t('forgot.pageTitle')}</h1>
        {o.notice && <Notice kind="ok">{t(o.notice)}</Notice>}
        {o.error && <Notice kind="error">{t(o.error)}</Notice>}
        {!mails ? <p>{t('forgot.noMail')}</p> : (
          <>
            <p>{t('forgot.intro')}</p>
            <form method="post" action="/console/forgot">
              <input type="hidden" name="token" value={form.tokenFor(req, reply)} />
              <div class="field">
                <label for="email">{t('login.email')}</label>
                <input id="email" name="email" type="email" autocomplete="username" required />
              </div>
              <button type="submit" class="button">{t('forgot.submit')}</button>
            </form>
          </>
        )}
        <p><a href="/console/login">{t('forgot.back')}</a></p>
      </BareLayout>
    ))
  }

  app.get('/forgot', async (req, reply) => page(req, reply, 200))

  app.post('/forgot', async (req, reply) => {
    if (!form.valid(req)) return page(req, reply, 403, { error: 'error.forbidden.body' })
    if (!mails) return page(req, reply, 200)
    // Not waiting for the link to be made: the answer takes as long for an unknown address.
    const { result } = await requestReset(deps, { email: field(req.body, 'email'), ip: req.ip, userAgent: req.headers['user-agent'], locale: pageLocale(req, reply) })
    return result === 'throttled' ? page(req, reply, 429, { error: 'forgot.throttled' }) : page(req, reply, 200, { notice: 'forgot.sent' })
  })
}
