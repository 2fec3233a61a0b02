/**
 * The guides (docs/*.md) as HTML under /docs/guides/<name>, beside the API reference: rendered once
 * with markdown-it, raw HTML in the Markdown escaped (html: false), headings given GitHub's ids
 * (github-slugger) so the guides' own `#anchors` work, links between guides pointed at their pages,
 * and a link to a repository file Till does not serve left as its path in words.
 */
import GithubSlugger from 'github-slugger'
import MarkdownIt from 'markdown-it'
import type Token from 'markdown-it/lib/token.mjs'

export interface Guide {
  name: string
  title: string
  html: string
  /** Every heading id, for tests and links. */
  ids: string[]
}

export const GUIDES_PATH = '/docs/guides'

const GUIDE_LINK = /^([a-z0-9-]+)\.md(#.*)?$/

interface Env {
  slugger: GithubSlugger
  ids: string[]
}

function renderer(guides: ReadonlySet<string>): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false })
  // GitHub's heading ids, so `[x](#webhooks)` and `operate.md#rate-limits` land where they do on GitHub.
  md.core.ruler.push('heading_ids', (state) => {
    const env = state.env as Env
    state.tokens.forEach((t, i) => {
      if (t.type !== 'heading_open') return
      const text = (state.tokens[i + 1].children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join('')
      const id = env.slugger.slug(text)
      env.ids.push(id)
      t.attrSet('id', id)
    })
  })
  // A table column's alignment as a class: the page's CSP allows no inline style.
  for (const rule of ['th_open', 'td_open']) {
    md.renderer.rules[rule] = (tokens, i, options, _env, self) => {
      const align = /text-align:(left|right|center)/.exec(tokens[i].attrGet('style') ?? '')?.[1]
      tokens[i].attrs = (tokens[i].attrs ?? []).filter(([name]) => name !== 'style')
      if (align) tokens[i].attrJoin('class', `align-${align}`)
      return self.renderToken(tokens, i, options)
    }
  }
  const openLink = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options))
  const closeLink = md.renderer.rules.link_close ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options))
  md.renderer.rules.link_open = (tokens: Token[], i, options, env: Env, self) => {
    const href = tokens[i].attrGet('href') ?? ''
    const guide = GUIDE_LINK.exec(href)
    if (guide && guides.has(guide[1])) tokens[i].attrSet('href', `${GUIDES_PATH}/${guide[1]}${guide[2] ?? ''}`)
    else if (!/^(https?:|mailto:|#|\/)/.test(href)) {
      // A file of the repository (a client's README, a deployment file): named, not linked.
      tokens[i].meta = { repositoryFile: href.replace(/^(\.\.\/)+/, '') }
      return ''
    }
    return openLink(tokens, i, options, env, self)
  }
  md.renderer.rules.link_close = (tokens: Token[], i, options, env: Env, self) => {
    const open = [...tokens.slice(0, i)].reverse().find((t) => t.type === 'link_open' && t.level === tokens[i].level)
    const file = (open?.meta as { repositoryFile?: string } | null)?.repositoryFile
    if (file) return ` (<code>${md.utils.escapeHtml(file)}</code> in Till's repository)`
    return closeLink(tokens, i, options, env, self)
  }
  return md
}

/** One guide: its title (the first heading) and its HTML body. `guides` are the names that can be linked to. */
export function renderGuide(name: string, markdown: string, guides: ReadonlySet<string>): Guide {
  const env: Env = { slugger: new GithubSlugger(), ids: [] }
  const html = renderer(guides).render(markdown, env)
  const title = /^#\s+(.+)$/m.exec(markdown)?.[1].replace(/`/g, '').trim() ?? name
  return { name, title, html, ids: env.ids }
}
