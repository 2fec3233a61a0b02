/**
 * Text a reader would find cut or spilling, as messages (empty when none): an element whose
 * content is wider or taller than a box that hides or scrolls it (scrollWidth > clientWidth with
 * overflow other than visible, an ellipsis), text that spills out of its own block or off the page,
 * and a page that scrolls sideways. Plain script text run in the page (tsx would wrap the named
 * functions of an evaluated callback in a helper the page lacks).
 */
import type { Page } from 'playwright-core'

const CUT_OR_SPILLED = `(() => {
  const problems = []
  const vw = document.documentElement.clientWidth
  const name = (el) => '<' + el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + '> "' + (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 50) + '"'
  for (const el of document.body.querySelectorAll('*')) {
    const s = getComputedStyle(el)
    if (s.display === 'none' || s.visibility === 'hidden' || el.closest('[hidden]')) continue
    // A 1 px box that clips on purpose (text for screen readers only) cuts nothing a reader sees.
    if (el.clientWidth <= 1 && el.clientHeight <= 1) continue
    if (s.overflowX !== 'visible' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) problems.push(name(el) + ' cuts its content: ' + el.scrollWidth + 'px in ' + el.clientWidth + 'px')
    if (s.overflowY !== 'visible' && el.clientHeight > 0 && el.scrollHeight > el.clientHeight + 1 && el.tagName !== 'TEXTAREA') problems.push(name(el) + ' cuts its content: ' + el.scrollHeight + 'px high in ' + el.clientHeight + 'px')
    if (s.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) problems.push(name(el) + ' ends in an ellipsis')
    const block = s.display !== 'inline' && s.display !== 'contents'
    const box = el.getBoundingClientRect()
    for (const node of el.childNodes) {
      if (node.nodeType !== 3 || !node.textContent.trim()) continue
      const range = document.createRange()
      range.selectNodeContents(node)
      for (const r of range.getClientRects()) {
        if (r.width === 0) continue
        if (r.right > vw + 1 || r.left < -1) { problems.push(name(el) + ' runs off the page (' + Math.round(r.left) + '-' + Math.round(r.right) + ' of ' + vw + 'px)'); break }
        if (block && (r.right > box.right + 1 || r.left < box.left - 1)) { problems.push(name(el) + ' spills out of its box by ' + Math.round(Math.max(r.right - box.right, box.left - r.left)) + 'px'); break }
      }
    }
  }
  const { scrollWidth } = document.documentElement
  if (scrollWidth > vw) problems.push('the page is ' + scrollWidth + 'px wide in ' + vw + 'px')
  return problems
})()`

export const cutOrSpilled = (page: Page): Promise<string[]> => page.evaluate(CUT_OR_SPILLED)
