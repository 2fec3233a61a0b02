/** /console/invitations/{token}: whoever holds an invitation's link sets a password and joins. */
import type { Deps } from '../../services/deps.js'
import { acceptInvitation, openInvitation } from '../../services/members.js'
import type { ConsoleKey } from '../i18n/index.js'
import { passwordLinkRoutes } from './password-link.js'

export const invitationRoutes = (deps: Deps) => passwordLinkRoutes({
  prefix: '/invitations',
  open: (token) => openInvitation(deps, token),
  use: (token, password, ip, userAgent) => acceptInvitation(deps, token, password, ip, userAgent),
  title: 'invite.pageTitle',
  gone: 'invite.gone',
  submit: 'invite.submit',
  intro: (t, inv) => t('invite.intro', { role: t(`role.${inv.role}` as ConsoleKey), email: inv.email }),
  notice: 'joined',
})
