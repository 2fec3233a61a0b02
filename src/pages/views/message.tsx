/** A page that only says something: errors (404, 403, 400, 500) and the relay's fallback body. */
import { Layout, type PageContext } from './layout.js'

export interface MessageView {
  title: string
  body?: string
  link?: { href: string; text: string }
  /** False on pages that answer a form post: there is no page to reload in another language. */
  langSwitch?: boolean
  /** The page is about something of test mode (a test link's "not active" page): the banner says so. */
  testMode?: boolean
}

export function MessagePage(p: PageContext & { v: MessageView }) {
  const { v } = p
  return (
    <Layout {...p} title={v.title} testMode={v.testMode} langPath={v.langSwitch === false ? null : undefined}>
      <section class="message" aria-labelledby="message-title">
        <h1 id="message-title">{v.title}</h1>
        {v.body && <p>{v.body}</p>}
        {v.link && (
          <p>
            <a class="button primary" href={v.link.href}>{v.link.text}</a>
          </p>
        )}
      </section>
    </Layout>
  )
}
