/** A guide's page, and the list of guides: a header linking the API reference and every guide, then the guide. */
import { raw } from 'hono/html'
import type { Guide } from './guides.js'
import { GUIDES_PATH } from './guides.js'

function Frame({ title, css, guides, current, children }: { title: string; css: string; guides: Guide[]; current: string | null; children: unknown }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={css} />
      </head>
      <body>
        <header>
          <nav aria-label="Documentation">
            <a href="/docs">API reference</a>
            <a href={GUIDES_PATH} aria-current={current === null ? 'page' : undefined}>Guides</a>
            {guides.map((g) => <a href={`${GUIDES_PATH}/${g.name}`} aria-current={g.name === current ? 'page' : undefined}>{g.title}</a>)}
          </nav>
        </header>
        <main>{children}</main>
      </body>
    </html>
  )
}

export function GuidePage({ guide, guides, css }: { guide: Guide; guides: Guide[]; css: string }) {
  // The body is markdown-it's output, whose raw HTML was escaped (guides.ts): markup we generate.
  return <Frame title={`${guide.title} · Till`} css={css} guides={guides} current={guide.name}>{raw(guide.html)}</Frame>
}

export function GuideIndex({ guides, css }: { guides: Guide[]; css: string }) {
  return (
    <Frame title="Guides · Till" css={css} guides={guides} current={null}>
      <h1>Till guides</h1>
      <p>How to integrate, operate and extend Till. Every endpoint, field and status is in the <a href="/docs">API reference</a>.</p>
      <ul class="guides">{guides.map((g) => <li><a href={`${GUIDES_PATH}/${g.name}`}>{g.title}</a></li>)}</ul>
    </Frame>
  )
}
