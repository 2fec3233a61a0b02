/** Small pieces shared by the pages. */

export function Amount({ label, value }: { label: string; value: string }) {
  return (
    <p class="amount">
      <span class="amount-label">{label}</span>
      <span class="amount-value">{value}</span>
    </p>
  )
}

/**
 * A moment as `<time datetime>`: the server writes it in the merchant's zone (it cannot know the
 * customer's; UTC unless the merchant set one) and till.js rewrites the text in the browser's own zone.
 */
export function LocalTime({ iso, text }: { iso: string; text: string }) {
  return <time datetime={iso}>{text}</time>
}

/** The id a customer may quote to the merchant: the session's or the record's, nothing internal. */
export function Reference({ label, value }: { label: string; value: string }) {
  return (
    <p class="reference">
      {label}: <code>{value}</code>
    </p>
  )
}

/** A provider's mark: a coloured badge beside its written name (decorative, so hidden from screen readers). */
export function ProviderMark({ provider }: { provider: string }) {
  return (
    <span class={`mark mark-${provider}`} aria-hidden="true">
      {provider.slice(0, 1).toUpperCase()}
    </span>
  )
}

const ICONS = {
  check: 'M6 12.5l4 4 8-9',
  cross: 'M7 7l10 10M17 7L7 17',
  undo: 'M8 8H15a4 4 0 010 8H9M8 8l3-3M8 8l3 3',
  clock: 'M12 6v6l4 2M12 20a8 8 0 110-16 8 8 0 010 16z',
} as const

/** A result's icon, drawn (no font has to carry it); decorative beside the written title. */
export function ResultIcon({ icon, tone }: { icon: keyof typeof ICONS; tone: string }) {
  return (
    <p class={`result-icon ${tone}`} aria-hidden="true">
      <svg viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">
        <path d={ICONS[icon]} />
      </svg>
    </p>
  )
}

/**
 * A status line that till.js turns into a wait: it long-polls /c/<id>/status and, once the session
 * is no longer `processing`, goes to the relay. Without the script it is just the text.
 */
export function AwaitPayment({ sessionId, text }: { sessionId: string; text: string }) {
  return (
    <p class="notice" role="status" data-await-payment={`/c/${sessionId}/status?wait=1`} data-done-url={`/c/${sessionId}/done`}>
      {text}
    </p>
  )
}
