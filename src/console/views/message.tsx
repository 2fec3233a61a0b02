/** An error page of the console (not found, an expired form, a failure). */
import type { Locale } from '../../web/locale.js'
import { BareLayout } from './layout.js'

export function MessagePage(p: { locale: Locale; title: string; body: string; back: string }) {
  return (
    <BareLayout locale={p.locale} title={p.title} langPath={null}>
      <h1>{p.title}</h1>
      <p>{p.body}</p>
      <p><a href="/console">{p.back}</a></p>
    </BareLayout>
  )
}
