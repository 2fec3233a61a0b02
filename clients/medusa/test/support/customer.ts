/**
 * The customer on Till's hosted checkout page in test mode: open the page the storefront sent them
 * to, press "Pay" (or "Simulate a failed payment"), and follow the redirects until they leave
 * Till. Plain HTTP, as a browser without scripts does it: the page works without JavaScript.
 */
export interface Visit {
  /** Where the customer ended up: the storefront's return URL, or a Till page. */
  location: string
}

export async function onTillPage(url: string, button: 'pay' | 'fail'): Promise<Visit> {
  const page = await fetch(url)
  if (page.status !== 200) throw new Error(`Till's page answered ${page.status}`)
  const html = await page.text()
  const action = new RegExp(`action="([^"]*/${button})"`).exec(html)?.[1]
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] // the page's form token, the same in each of its forms
  if (!action || !token) throw new Error(`no ${button} form on Till's page (is the session still open, and in test mode?)`)
  const till = new URL(url).origin
  let answer = await fetch(new URL(action, till), { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' })
  let location = url
  while (answer.status === 303 || answer.status === 302) {
    location = new URL(answer.headers.get('location')!, location).toString()
    if (new URL(location).origin !== till) break // back at the storefront
    answer = await fetch(location, { redirect: 'manual' })
  }
  return { location }
}
