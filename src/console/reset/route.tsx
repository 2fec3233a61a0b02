/** /console/reset/{token}: whoever holds a password reset link sets the member's new password. */
import type { Deps } from '../../services/deps.js'
import { openReset, useReset } from '../../services/password-reset.js'
import { passwordLinkRoutes } from '../members/password-link.js'

export const resetRoutes = (deps: Deps) => passwordLinkRoutes({
  prefix: '/reset',
  open: (token) => openReset(deps, token),
  use: (token, password, ip, userAgent) => useReset(deps, token, password, ip, userAgent),
  title: 'reset.pageTitle',
  gone: 'reset.gone',
  submit: 'reset.submit',
  intro: (t, member) => t('reset.intro', { email: member.email }),
  notice: 'password-reset',
  goneLink: { href: '/console/forgot', text: 'login.forgot' },
})
