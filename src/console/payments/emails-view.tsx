/** The buyer's emails in a payment's timeline: sent, queued, retrying (with the next try) or failed. */
import type { SessionEmail } from '../../services/emails.js'
import type { ConsoleKey } from '../i18n/index.js'
import { when } from '../format.js'
import type { ConsoleContext } from '../views/layout.js'

export function EmailTimeline({ c, emails }: { c: ConsoleContext; emails: SessionEmail[] }) {
  const { t } = c
  if (emails.length === 0) return null
  return (
    <ul class="timeline emails">
      {emails.map((e) => (
        <li data-email={e.kind} data-email-status={e.status}>
          <strong>{t(`timeline.email.${e.kind}` as ConsoleKey, { to: e.recipient })}</strong>{' '}
          <span class="muted">{when(e.at, c)}</span> · {t(`timeline.email.${e.status}` as ConsoleKey, { attempts: String(e.attempts), next: when(e.nextAttemptAt, c) ?? '' })}
          {e.lastError && e.status !== 'sent' && <span class="muted"> · {e.lastError}</span>}
        </li>
      ))}
    </ul>
  )
}
